import { sql, type SelectQueryBuilder } from 'kysely';
import { markPending } from '../indexing/store';
import { WRITTEN, type RecordRow } from '../records/store';
import type { Executor, IndexingStatus, RecordsSchema, Trx } from '../shared/schema';

/**
 * Queries over every record of one collection at once (the portal's collection actions and browsing). Each write is
 * one statement whatever the collection's size: the ids travel in a subquery, never as one parameter per record.
 */

const TABLE = 'records.records';

type IdQuery = SelectQueryBuilder<RecordsSchema, typeof TABLE, { id: string }>;

/**
 * The tenant's records of a collection that `scope` selects, locked in id order (the order every multi-record write
 * locks in, so concurrent writers do not deadlock), as a subquery for an update.
 */
export function lockedIds(trx: Trx, tenantId: string, collection: string, scope: (query: IdQuery) => IdQuery) {
  const query = trx.selectFrom(TABLE).select('id').where('tenant_id', '=', tenantId).where('collection', '=', collection);
  return scope(query).orderBy('id').forUpdate();
}

/** Archives the collection's records of one generation that are not archived yet; returns those it archived. */
export async function archiveGeneration(trx: Trx, tenantId: string, collection: string, generation: number): Promise<RecordRow[]> {
  const rows = await trx
    .updateTable(TABLE)
    .set({ status: 'archived', version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', lockedIds(trx, tenantId, collection, (q) => q.where('generation', '=', generation).where('status', '<>', 'archived')))
    .returning(WRITTEN)
    .execute();
  return markPending(trx, tenantId, rows);
}

export interface BrowseFilter {
  tenantId: string;
  collection: string;
  recordType?: string;
  limit: number;
  offset: number;
}

export type BrowseRow = Pick<
  RecordRow,
  'id' | 'name' | 'description' | 'collection' | 'record_type' | 'indexing_status' | 'collection_data' | 'created_at' | 'updated_at'
>;

/** The active records of the collection's active generation (of one record type when given). */
function browsed(db: Executor, filter: BrowseFilter) {
  let query = db
    .selectFrom('records.records as r')
    .innerJoin('records.collections as c', (join) => join.onRef('c.tenant_id', '=', 'r.tenant_id').onRef('c.name', '=', 'r.collection'))
    .where('r.tenant_id', '=', filter.tenantId)
    .where('r.collection', '=', filter.collection)
    .where('r.status', '=', 'active')
    .whereRef('r.generation', '=', 'c.active_generation');
  if (filter.recordType !== undefined) query = query.where('r.record_type', '=', filter.recordType);
  return query;
}

/** One page of the collection's records, newest first by (created_at, id), and how many there are in all. */
export async function browseRecords(db: Executor, filter: BrowseFilter): Promise<{ rows: BrowseRow[]; total: number }> {
  const rows = await browsed(db, filter)
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .select([
      'r.id',
      'r.name',
      'r.description',
      'r.collection',
      'r.record_type',
      sql<IndexingStatus>`i.status`.as('indexing_status'),
      'r.collection_data',
      'r.created_at',
      'r.updated_at',
    ])
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
  const { total } = await browsed(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** The names of the tenant's collections with a replace staged (blue-green), not yet swapped in or cancelled. */
export async function collectionsWithPendingReplace(db: Executor, tenantId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('records.collections')
    .select('name')
    .where('tenant_id', '=', tenantId)
    .where('staging_generation', 'is not', null)
    .execute();
  return new Set(rows.map((r) => r.name));
}
