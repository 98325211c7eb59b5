import { sql } from 'kysely';
import type { Holdings } from '../domain/quota';
import type { Executor, Trx } from './schema';

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
 * will hold after the swap) or not at all when that is null (what a replace of it keeps). One grouped pass over the tenant's
 * records (index records_list).
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
    select count(*)::int as records,
           count(distinct r.collection)::int as collections,
           coalesce(bool_or(r.collection = ${collection}::text), false) as holds
    from records.records r
    join records.collections c on c.tenant_id = r.tenant_id and c.name = r.collection
    where r.tenant_id = ${tenantId} and r.status = 'active'
      and r.generation = case when r.collection = ${collection}::text then ${generation}::int else c.active_generation end
  `.execute(db);
  const row = rows[0]!;
  return { records: row.records, collections: row.collections, holdsCollection: row.holds };
}
