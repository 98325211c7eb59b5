import { sql } from 'kysely';
import type { Db } from './schema';

export interface CountIncrement {
  day: string;
  tenant_id: string;
  collection: string;
  searches: number;
}

/** Adds the increments in one statement; concurrent replicas add to the same rows safely. */
export async function addSearchCounts(db: Db, increments: CountIncrement[]): Promise<void> {
  if (increments.length === 0) return;
  await db
    .insertInto('open.search_counts')
    .values(increments)
    .onConflict((oc) => oc.columns(['tenant_id', 'day', 'collection']).doUpdateSet({ searches: sql`open.search_counts.searches + excluded.searches` }))
    .execute();
}

/** Open searches per collection of a tenant between two UTC days (inclusive), most searched first. */
export async function searchCountsOf(db: Db, tenantId: string, from: string, to: string): Promise<Array<{ collection: string; searches: number }>> {
  const rows = await db
    .selectFrom('open.search_counts')
    .select(['collection', sql<string>`sum(searches)`.as('searches')])
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('collection')
    .orderBy(sql`sum(searches)`, 'desc')
    .orderBy('collection')
    .execute();
  return rows.map((r) => ({ collection: r.collection, searches: Number(r.searches) }));
}
