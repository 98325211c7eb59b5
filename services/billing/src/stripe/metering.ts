import { sql } from 'kysely';
import { PLAN_LIMITS, usagePeriodOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { StripeProvider } from './provider';
import type { Db, Trx } from '../store/schema';
import { PAID_PLANS } from './settings';

/** Unreported windows sent per run, oldest first; the rest wait for the next run. */
const SEND_BATCH = 500;
/** The provider accepts meter events up to 35 days old: older ones are sent as of this long ago. */
const OLDEST_EVENT_MS = 34 * 24 * 3600 * 1000;
/** Serialises deciding across billing replicas, so two of them never decide the same overage twice. */
const METER_LOCK = 'billing.search_meter';

/** A tenant's month beyond its plan's searches, not yet decided for any window. */
interface Candidate {
  tenant_id: string;
  plan: string;
  stripe_customer_id: string;
  searches: string;
  decided: string;
}

/**
 * Reports paid tenants' search overage to the provider's `trove_search` meter every interval (5 minutes by
 * default). The usage table is the source of truth: each run decides, per tenant and month, the overage not yet
 * decided (overage now minus every value decided before) and records it as one row for the run's window, in one
 * transaction, before the provider is called. Sending is fire-and-forget: a failed call is logged and sent again next
 * run with the same identifier (the provider's dedup key, and the idempotency key of the call), and a window that
 * was decided is never decided again, so a restart reports nothing twice.
 */
export class SearchMeter {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: { db: Db; provider: StripeProvider; logger: Logger; intervalMs: number }) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress, so nothing is left half-decided by a clean shutdown. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.run()
      .catch((err: unknown) => this.deps.logger.error({ err }, 'search metering run failed; the next run catches up'))
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
  }

  /** One run: decide the window's overage, then send every window not yet reported. */
  async run(now = new Date()): Promise<void> {
    const windowStart = new Date(Math.floor(now.getTime() / this.deps.intervalMs) * this.deps.intervalMs);
    await this.decide(windowStart, now);
    await this.send(now);
  }

  private async decide(windowStart: Date, now: Date): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${METER_LOCK}))`.execute(trx);
      for (const period of periodsToMeter(now)) {
        const rows = (await this.candidates(trx, period)).flatMap((c) => {
          const included = PLAN_LIMITS[c.plan as (typeof PAID_PLANS)[number]].searches_per_month ?? 0;
          const value = Math.max(0, Number(c.searches) - included) - Number(c.decided);
          if (value <= 0) return [];
          const identifier = `trove_search:${c.tenant_id}:${period}:${windowStart.getTime() / 1000}`;
          return [{ tenant_id: c.tenant_id, window_start: windowStart, period, identifier, stripe_customer_id: c.stripe_customer_id, value }];
        });
        if (rows.length === 0) continue;
        // A window already decided (a second run in it, after a restart) keeps what it had: the overage waits a window.
        await trx
          .insertInto('billing.meter_reports')
          .values(rows)
          .onConflict((oc) => oc.columns(['tenant_id', 'period', 'window_start']).doNothing())
          .execute();
      }
    });
  }

  private candidates(trx: Trx, period: string): Promise<Candidate[]> {
    return trx
      .selectFrom('billing.tenant_plans as p')
      .innerJoin('billing.usage as u', (j) => j.onRef('u.tenant_id', '=', 'p.tenant_id').on('u.period', '=', period))
      .select((eb) => [
        'p.tenant_id',
        'p.plan',
        sql<string>`p.stripe_customer_id`.as('stripe_customer_id'),
        sql<string>`u.searches`.as('searches'),
        eb
          .selectFrom('billing.meter_reports as m')
          .select(sql<string>`coalesce(sum(m.value), 0)`.as('decided'))
          .whereRef('m.tenant_id', '=', 'p.tenant_id')
          .where('m.period', '=', period)
          .as('decided'),
      ])
      .where('p.plan', 'in', [...PAID_PLANS])
      .where('p.stripe_customer_id', 'is not', null)
      .execute() as Promise<Candidate[]>;
  }

  private async send(now: Date): Promise<void> {
    const pending = await this.deps.db
      .selectFrom('billing.meter_reports')
      .select(['tenant_id', 'period', 'window_start', 'identifier', 'stripe_customer_id', 'value'])
      .where('reported_at', 'is', null)
      .orderBy('decided_at')
      .limit(SEND_BATCH)
      .execute();
    for (const row of pending) {
      const key = { tenant_id: row.tenant_id, period: row.period, window_start: row.window_start };
      try {
        await this.deps.provider.reportMeter({
          identifier: row.identifier,
          customerId: row.stripe_customer_id,
          value: Number(row.value),
          timestamp: Math.floor(eventTime(row.period, row.window_start, now).getTime() / 1000),
        });
        await this.deps.db.updateTable('billing.meter_reports').set({ reported_at: new Date() }).where((eb) => eb.and(key)).execute();
      } catch (err) {
        this.deps.logger.warn({ err, tenantId: row.tenant_id, identifier: row.identifier }, 'search overage not reported; sent again next run');
        await this.deps.db
          .updateTable('billing.meter_reports')
          .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
          .where((eb) => eb.and(key))
          .execute();
      }
    }
  }
}

/**
 * The months a run meters: the current one, and on the first day of a month the one before too, so searches counted
 * after the last run of a month are still reported.
 */
export function periodsToMeter(now: Date): string[] {
  const current = usagePeriodOf(now);
  if (now.getUTCDate() !== 1) return [current];
  return [usagePeriodOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0))), current];
}

/** When the overage happened as the provider sees it: in its own month, and no older than the provider accepts. */
function eventTime(period: string, windowStart: Date, now: Date): Date {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const periodEnd = new Date(Date.UTC(year, month, 1) - 1000);
  const at = windowStart < periodEnd ? windowStart : periodEnd;
  return new Date(Math.max(at.getTime(), now.getTime() - OLDEST_EVENT_MS));
}
