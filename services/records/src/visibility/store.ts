import { sql } from 'kysely';
import { lockedIds } from '../collections/records-store';
import { markPending } from '../indexing/store';
import { WRITTEN, type RecordRow } from '../records/store';
import type { Executor, Trx } from '../shared/schema';

const TABLE = 'records.records';

/** Sets the visibility of the tenant's live records among `ids` that have another one; returns those it changed. */
export async function setVisibility(trx: Trx, tenantId: string, ids: string[], visibility: RecordRow['visibility']): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable(TABLE)
    .set({ visibility, version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('status', '<>', 'archived')
    .where('visibility', '<>', visibility)
    .returning(WRITTEN)
    .execute();
  return markPending(trx, tenantId, rows);
}

/**
 * Sets the visibility of the collection's active records (of every generation, so a staged replace keeps up) that
 * have another one; returns those it changed.
 */
export async function setCollectionVisibility(
  trx: Trx,
  tenantId: string,
  collection: string,
  visibility: RecordRow['visibility'],
): Promise<RecordRow[]> {
  const rows = await trx
    .updateTable(TABLE)
    .set({ visibility, version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', lockedIds(trx, tenantId, collection, (q) => q.where('status', '=', 'active').where('visibility', '<>', visibility)))
    .returning(WRITTEN)
    .execute();
  return markPending(trx, tenantId, rows);
}

/** Sets the visibility future records of the collection take; creates the collection if it is new. */
export async function setDefaultVisibility(db: Executor, tenantId: string, name: string, visibility: 'private' | 'public'): Promise<void> {
  await db
    .insertInto('records.collections')
    .values({ tenant_id: tenantId, name, default_visibility: visibility })
    .onConflict((oc) => oc.columns(['tenant_id', 'name']).doUpdateSet({ default_visibility: visibility, updated_at: sql`now()` }))
    .execute();
}
