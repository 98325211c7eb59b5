import { FailOpenCounts, type Cache } from '@trove/cache';
import { BILLING_USAGE, PLAN_LIMITS, planOf, usagePeriodOf, type Plan, type PlanLimits } from '@trove/contracts';
import { ERRORS, type Identity, type Logger, type ServiceClient } from '@trove/platform';

/**
 * The month's count lives under a key naming the month, so it starts afresh each month whatever its window; the window
 * (longer than any month) only lets the store forget it afterwards. One length for every month's key.
 */
const MONTH_KEY_MS = 32 * 24 * 60 * 60 * 1000;

/** The month's search allowance enforced here: only a plan that refuses overage has one (paid overage is billed). */
export function monthlySearchCap(plan: Plan): number | undefined {
  const limits: PlanLimits = PLAN_LIMITS[plan];
  return limits.allows_overage ? undefined : (limits.searches_per_month ?? undefined);
}

export interface MonthlyCapOptions {
  cache: Cache;
  /** Billing answers a tenant's counted searches of the month, which seed this count (BILLING_USAGE). */
  billing: Pick<ServiceClient, 'call'>;
  logger: Logger;
  now?: () => number;
}

/**
 * The month's searches of a plan without overage (free: 402 past 50). Checked here, where every private search
 * arrives (a key's or a portal user's through the gateway, an MCP tool's from the MCP service), so no path escapes it.
 * The count lives in the cache port, so replicas sharing Redis share it. When the store cannot answer, searches pass,
 * logged once per outage.
 */
export class MonthlyCap {
  /** The month's count billing had when this process first counted a tenant's searches in a month. */
  private readonly seeds = new Map<string, Promise<number>>();
  private seedsPeriod = '';
  private readonly counts: FailOpenCounts;
  private readonly now: () => number;

  constructor(private readonly opts: MonthlyCapOptions) {
    this.now = opts.now ?? Date.now;
    this.counts = new FailOpenCounts(opts.cache, opts.logger, 'monthly search counters', 'searches pass uncapped');
  }

  /** One more search in the tenant's month, refused past its plan's cap (nothing counted for a plan without one). */
  async check(identity: Identity): Promise<void> {
    const cap = monthlySearchCap(planOf(identity.plan));
    if (cap === undefined) return;
    const tenant = identity.tenantId;
    const period = usagePeriodOf(new Date(this.now()));
    const initial = await this.seed(tenant, period);
    const [counted] = (await this.counts.hitAll([{ key: `search:month:${tenant}:${period}`, windowMs: MONTH_KEY_MS, initial }])) ?? [];
    if (counted && counted.count > cap) {
      throw ERRORS.paymentRequired(`Monthly search limit of ${cap} reached on the free plan; upgrade to a paid plan to search more this month.`, 'monthly_searches');
    }
  }

  /**
   * What billing had counted for the tenant's month, asked once per tenant and month by this process; 0 (logged) when
   * billing cannot answer. The store ignores it where the month's count already exists (another replica's, or this
   * process's before a restart when the store is Redis).
   */
  private seed(tenant: string, period: string): Promise<number> {
    if (period !== this.seedsPeriod) {
      // A new month: last month's seeds are never needed again.
      this.seeds.clear();
      this.seedsPeriod = period;
    }
    let seed = this.seeds.get(tenant);
    if (!seed) {
      seed = this.askBilling(tenant, period);
      this.seeds.set(tenant, seed);
    }
    return seed;
  }

  private async askBilling(tenant: string, period: string): Promise<number> {
    try {
      const counted = await this.opts.billing.call(BILLING_USAGE, {
        query: { tenant_id: tenant },
        identity: { tenantId: tenant, principal: 'service:search', scopes: [] },
      });
      if (counted.period === period) return counted.searches;
      this.opts.logger.warn({ tenantId: tenant, period, counted: counted.period }, "billing counted another month's searches; counting from 0");
    } catch (err) {
      this.opts.logger.warn({ tenantId: tenant, period, reason: (err as Error).message }, "billing unreachable; the month's searches counted from 0");
    }
    return 0;
  }
}
