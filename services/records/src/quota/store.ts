import { sql } from 'kysely';
import type { Plan } from '@trove/contracts';
import type { Executor, Trx } from '../shared/schema';
import { allowance, isLimited, type Holdings } from './quota';

/**
 * Serialises the writes that may add active records for one tenant until commit, so two of them cannot both count 49
 * of 50 and both write: the later one counts after the earlier one committed (each statement reads anew). Taken
 * last, after any collection lock and row lock a write needs, so it never waits for those while holding this.
 */
export async function lockTenantQuota(trx: Trx, tenantId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`records.quota:${tenantId}`}, 0))`.execute(trx);
}

/**
 * The tenant's active records and the collections holding them, each collection counted in its active generation,
 * except the written collection, counted in the written generation (a replace's staging one: what the collection
 * will hold after the swap) or not at all when that is null (what a replace of it keeps). The records are counted by
 * collection and generation from the index records_collections alone (an index-only scan), then matched to the
 * generation each collection counts in.
 */
export async function tenantHoldings(
  db: Executor,
  tenantId: string,
  written?: { collection: string; generation: number | null },
): Promise<Holdings> {
  // Without a written collection every comparison with it is null: each collection counts in its active generation.
  const collection = written?.collection ?? null;
  const generation = written?.generation ?? null;
  const { rows } = await sql<{ records: number; collections: number; holds: boolean }>`
    with counted as (
      select collection, generation, count(*)::int as n
      from records.records
      where tenant_id = ${tenantId} and status = 'active'
      group by collection, generation
    )
    select coalesce(sum(k.n), 0)::int as records,
           count(*)::int as collections,
           coalesce(bool_or(k.collection = ${collection}::text), false) as holds
    from counted k
    join records.collections c on c.tenant_id = ${tenantId} and c.name = k.collection
    where k.generation = case when k.collection = ${collection}::text then ${generation}::int else c.active_generation end
  `.execute(db);
  const row = rows[0]!;
  return { records: row.records, collections: row.collections, holdsCollection: row.holds };
}

/**
 * For a plan that limits records or collections: takes the tenant's quota lock (held until commit) and says how many
 * active records a write may add to the collection's generation. Undefined when the plan limits neither, at no cost.
 */
export async function createLimit(trx: Trx, tenantId: string, plan: Plan, collection: string, generation: number): Promise<{ allowed: number; reason: string } | undefined> {
  if (!isLimited(plan)) return undefined;
  await lockTenantQuota(trx, tenantId);
  const { allowed, reason } = allowance(plan, await tenantHoldings(trx, tenantId, { collection, generation }));
  return allowed === null ? undefined : { allowed, reason };
}
