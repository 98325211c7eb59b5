import { sql } from 'kysely';
import type { Db } from './schema';

/** A tenant's counted calls of a period, to add once: `eventId` names the usage.events fact they came in. */
export interface UsageCount {
  eventId: string;
  tenantId: string;
  period: string;
  kind: 'requests' | 'searches';
  count: number;
  /** The UTC day (YYYY-MM-DD, within `period`) searches are charted on. */
  day: string;
}

/** A tenant's counts of one period; 0 before the first. */
export interface PeriodUsage {
  requests: number;
  searches: number;
}

/**
 * Adds a batch of counts in one transaction. A fact delivered again adds nothing: its event id is remembered in
 * billing.usage_events_seen, and only the ids first seen now are added.
 */
export async function addUsage(db: Db, counts: UsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const fresh = new Set(
      (
        await trx
          .insertInto('billing.usage_events_seen')
          .values([...new Set(counts.map((c) => c.eventId))].map((event_id) => ({ event_id })))
          .onConflict((oc) => oc.column('event_id').doNothing())
          .returning('event_id')
          .execute()
      ).map((r) => r.event_id),
    );
    const sums = new Map<string, { tenant_id: string; period: string; requests: number; searches: number }>();
    const days = new Map<string, { tenant_id: string; day: string; searches: number }>();
    for (const c of counts) {
      if (!fresh.has(c.eventId)) continue;
      // The same fact twice in one batch is counted once too.
      fresh.delete(c.eventId);
      const key = `${c.tenantId}\u0000${c.period}`;
      let sum = sums.get(key);
      if (!sum) sums.set(key, (sum = { tenant_id: c.tenantId, period: c.period, requests: 0, searches: 0 }));
      sum[c.kind] += c.count;
      if (c.kind !== 'searches') continue;
      const dayKey = `${c.tenantId}\u0000${c.day}`;
      let daySum = days.get(dayKey);
      if (!daySum) days.set(dayKey, (daySum = { tenant_id: c.tenantId, day: c.day, searches: 0 }));
      daySum.searches += c.count;
    }
    if (sums.size === 0) return;
    await trx
      .insertInto('billing.usage')
      .values([...sums.values()])
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'period']).doUpdateSet({
          requests: sql`billing.usage.requests + excluded.requests`,
          searches: sql`billing.usage.searches + excluded.searches`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
    if (days.size === 0) return;
    await trx
      .insertInto('billing.usage_days')
      .values([...days.values()])
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'day']).doUpdateSet({ searches: sql`billing.usage_days.searches + excluded.searches`, updated_at: sql`now()` }),
      )
      .execute();
  });
}

/** Forgets event ids seen longer ago than any redelivery could come (the bus redelivers within minutes, not weeks). */
export async function forgetSeenEvents(db: Db, olderThanDays: number): Promise<void> {
  await db
    .deleteFrom('billing.usage_events_seen')
    .where('seen_at', '<', sql<Date>`now() - make_interval(days => ${olderThanDays})`)
    .execute();
}

/** The tenant's counts of a period (YYYY-MM). */
export async function usageOf(db: Db, tenantId: string, period: string): Promise<PeriodUsage> {
  const row = await db
    .selectFrom('billing.usage')
    .select(['requests', 'searches'])
    .where('tenant_id', '=', tenantId)
    .where('period', '=', period)
    .executeTakeFirst();
  return { requests: Number(row?.requests ?? 0), searches: Number(row?.searches ?? 0) };
}

/** The tenant's counted searches of each day of a period (YYYY-MM) that has any, by day (YYYY-MM-DD). */
export async function searchesByDay(db: Db, tenantId: string, period: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('billing.usage_days')
    // As text: a date column would be read as a Date at local midnight.
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'searches'])
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', `${period}-01`)
    .where(sql<boolean>`day < ${`${period}-01`}::date + interval '1 month'`)
    .execute();
  return new Map(rows.map((r) => [r.day, Number(r.searches)]));
}
