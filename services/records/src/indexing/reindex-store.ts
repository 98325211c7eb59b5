import { sql, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import { WRITTEN, type RecordRow } from '../records/store';
import type { RecordsSchema, Trx } from '../shared/schema';
import { indexingAt, markPending } from './store';

/** The writes that send stored records through indexing again, unchanged but for a new version. */

const TABLE = 'records.records';

/** Sends the tenant's live records whose indexing failed back to pending, each with a new version to index. */
export async function resetFailed(trx: Trx, tenantId: string): Promise<RecordRow[]> {
  return bumpVersions(trx, tenantId, (q) => q.where('id', 'in', indexingAt(trx, tenantId, ['failed'])));
}

/**
 * Queues records for indexing again: each live record (of one collection, or one record) goes back to pending with a
 * new version, so its records.changed event flows through the normal pipeline. Archived records stay as they are.
 */
export async function resetForReindex(trx: Trx, tenantId: string, scope: { collection: string } | { id: string }): Promise<RecordRow[]> {
  return bumpVersions(trx, tenantId, (q) => ('collection' in scope ? q.where('collection', '=', scope.collection) : q.where('id', '=', scope.id)));
}

/** Queues the tenant's live records among `ids` that are pending or failed for indexing again, each with a new version. */
export async function requeueRecords(trx: Trx, tenantId: string, ids: string[]): Promise<RecordRow[]> {
  return bumpVersions(trx, tenantId, (q) =>
    q.where('id', 'in', indexingAt(trx, tenantId, ['pending', 'failed']).where(sql<boolean>`record_id = any(${ids}::uuid[])`)),
  );
}

type RecordsUpdate = UpdateQueryBuilder<RecordsSchema, typeof TABLE, typeof TABLE, UpdateResult>;

/** Gives the tenant's live records that `scope` selects a new version to index, pending; returns them. */
async function bumpVersions(trx: Trx, tenantId: string, scope: (query: RecordsUpdate) => RecordsUpdate): Promise<RecordRow[]> {
  const query = trx.updateTable(TABLE).set({ version: sql`version + 1` }).where('tenant_id', '=', tenantId).where('status', '<>', 'archived');
  return markPending(trx, tenantId, await scope(query).returning(WRITTEN).execute());
}
