import { sql } from 'kysely';
import type { CollectionStats } from '@trove/contracts';
import type { Executor } from '../shared/schema';

/**
 * Per collection of a tenant: its active records of the active generation, how many of them are public, and when
 * one last changed; by name. One grouped query over the records and their collection (index records_collections).
 */
export async function collectionStats(db: Executor, tenantId: string): Promise<CollectionStats[]> {
  const { rows } = await sql<{ collection: string; record_count: number; public_count: number; last_updated: Date | string }>`
    select r.collection,
      count(*)::int as record_count,
      (count(*) filter (where r.visibility = 'public'))::int as public_count,
      max(r.updated_at) as last_updated
    from records.records r
    join records.collections c on c.tenant_id = r.tenant_id and c.name = r.collection
    where r.tenant_id = ${tenantId} and r.status = 'active' and r.generation = c.active_generation
    group by r.collection
    order by r.collection
  `.execute(db);
  return rows.map((r) => ({ ...r, last_updated: new Date(r.last_updated).toISOString() }));
}
