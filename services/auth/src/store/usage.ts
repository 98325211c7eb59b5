import { sql } from 'kysely';
import type { Plan } from '@trove/contracts';
import type { ProvenStep, QuickstartStep } from '../domain/quickstart';
import type { AuthDb, Db } from './schema';

/** A tenant's searches of a period, to add once: `eventId` names the usage.events fact they came in. */
export interface SearchCount {
  eventId: string;
  tenantId: string;
  period: string;
  count: number;
}

/** The first proof seen of a quickstart step. */
export interface StepProof {
  tenantId: string;
  step: ProvenStep;
  at: string;
}

/**
 * Applies a batch of usage facts in one transaction. A fact delivered again is no-op: a search count's event id is
 * remembered in auth.usage_events_seen (only ids first seen now are added), and a step's completion is written once.
 */
export async function applyUsage(db: Db, counts: SearchCount[], proofs: StepProof[]): Promise<void> {
  if (counts.length === 0 && proofs.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (counts.length > 0) {
      const fresh = new Set(
        (
          await trx
            .insertInto('auth.usage_events_seen')
            .values(counts.map((c) => ({ event_id: c.eventId })))
            .onConflict((oc) => oc.column('event_id').doNothing())
            .returning('event_id')
            .execute()
        ).map((r) => r.event_id),
      );
      const sums = new Map<string, { tenant_id: string; period: string; searches: number }>();
      for (const c of counts) {
        if (!fresh.has(c.eventId)) continue;
        fresh.delete(c.eventId);
        const key = `${c.tenantId}\u0000${c.period}`;
        const sum = sums.get(key);
        if (sum) sum.searches += c.count;
        else sums.set(key, { tenant_id: c.tenantId, period: c.period, searches: c.count });
      }
      if (sums.size > 0) {
        await trx
          .insertInto('auth.usage_counters')
          .values([...sums.values()])
          .onConflict((oc) =>
            oc.columns(['tenant_id', 'period']).doUpdateSet({ searches: sql`auth.usage_counters.searches + excluded.searches`, updated_at: sql`now()` }),
          )
          .execute();
      }
    }
    if (proofs.length > 0) {
      await trx
        .insertInto('auth.quickstart_steps')
        .values(firstProofs(proofs).map((p) => ({ tenant_id: p.tenantId, step: p.step, completed_at: p.at })))
        .onConflict((oc) => oc.columns(['tenant_id', 'step']).doNothing())
        .execute();
    }
  });
}

/** The earliest proof of each tenant's step among a batch's. */
function firstProofs(proofs: StepProof[]): StepProof[] {
  const first = new Map<string, StepProof>();
  for (const p of proofs) {
    const key = `${p.tenantId}\u0000${p.step}`;
    const seen = first.get(key);
    if (!seen || Date.parse(p.at) < Date.parse(seen.at)) first.set(key, p);
  }
  return [...first.values()];
}

/** Forgets event ids seen longer ago than any redelivery could come (the bus redelivers within minutes, not weeks). */
export async function forgetSeenEvents(db: AuthDb, olderThanDays: number): Promise<void> {
  await db
    .deleteFrom('auth.usage_events_seen')
    .where('seen_at', '<', sql<Date>`now() - make_interval(days => ${olderThanDays})`)
    .execute();
}

/** The tenant's private searches counted for a period (YYYY-MM); 0 before the first. */
export async function searchesOf(db: AuthDb, tenantId: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('auth.usage_counters')
    .select('searches')
    .where('tenant_id', '=', tenantId)
    .where('period', '=', period)
    .executeTakeFirst();
  return row ? Number(row.searches) : 0;
}

/**
 * When each quickstart step was completed, for the steps that were: the first key is auth's own (the oldest key the
 * tenant ever had, revoked or not); the others as their first usage.events proof recorded them.
 */
export async function completedSteps(db: AuthDb, tenantId: string): Promise<Map<QuickstartStep, Date>> {
  const [firstKey, proven] = await Promise.all([
    db.selectFrom('auth.api_keys').select(sql<Date | null>`min(created_at)`.as('at')).where('tenant_id', '=', tenantId).executeTakeFirst(),
    db.selectFrom('auth.quickstart_steps').select(['step', 'completed_at']).where('tenant_id', '=', tenantId).execute(),
  ]);
  const steps = new Map<QuickstartStep, Date>(proven.map((r) => [r.step, new Date(r.completed_at)]));
  if (firstKey?.at) steps.set('create_api_key', new Date(firstKey.at));
  return steps;
}

/** The tenant's plan; undefined when auth has no such tenant. */
export async function planOfTenant(db: AuthDb, tenantId: string): Promise<Plan | undefined> {
  const row = await db.selectFrom('auth.tenants').select('plan').where('id', '=', tenantId).executeTakeFirst();
  return row?.plan;
}
