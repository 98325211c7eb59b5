import { sql } from 'kysely';
import type { IndexingSummary, VocabularyName } from '@trove/contracts';
import type { Executor, Trx } from '../shared/schema';

const TABLE = 'records.collections';

/** A collection's generations as a replace sees them; staging fields are null when no replace is in progress. */
export interface GenerationState {
  active_generation: number;
  staging_generation: number | null;
  staging_status: 'uploading' | 'uploaded' | null;
  vocabulary: VocabularyName;
}

const STATE = ['active_generation', 'staging_generation', 'staging_status', 'vocabulary'] as const;

function collectionRow(db: Executor, tenantId: string, name: string) {
  return db.selectFrom(TABLE).select(STATE).where('tenant_id', '=', tenantId).where('name', '=', name);
}

/** The collection's generations without a lock; undefined when the tenant has no such collection. */
export async function generationState(db: Executor, tenantId: string, name: string): Promise<GenerationState | undefined> {
  return collectionRow(db, tenantId, name).executeTakeFirst();
}

/**
 * The collection's generations, and whether a swap or cancel holds the row (it takes the row FOR UPDATE, which is
 * what a key-share lock conflicts with): a status read then says one is under way instead of waiting for it.
 */
export async function generationStateUnlessBusy(
  trx: Trx,
  tenantId: string,
  name: string,
): Promise<{ state: GenerationState; busy: boolean } | undefined> {
  const row = await collectionRow(trx, tenantId, name).forKeyShare().skipLocked().executeTakeFirst();
  if (row) return { state: row, busy: false };
  const state = await generationState(trx, tenantId, name);
  return state && { state, busy: true };
}

/** The collection's generations, locked against writes (every writer holds a key-share lock on it) until commit. */
export async function lockGenerations(trx: Trx, tenantId: string, name: string): Promise<GenerationState | undefined> {
  return collectionRow(trx, tenantId, name).forUpdate().executeTakeFirst();
}

/** Records search's acknowledgement that it serves `generation` of the collection (it only ever rises). */
export async function acknowledgeSwaps(db: Executor, swaps: Array<{ tenantId: string; collection: string; generation: number }>): Promise<void> {
  if (swaps.length === 0) return;
  await sql`
    update records.collections c set searched_generation = greatest(coalesce(c.searched_generation, 0), x.generation)
    from jsonb_to_recordset(${JSON.stringify(swaps)}::jsonb) as x("tenantId" text, collection text, generation integer)
    where c.tenant_id = x."tenantId" and c.name = x.collection
  `.execute(db);
}

/** The generation search serves of the collection, as last acknowledged (0 before any swap). */
export async function searchedGeneration(db: Executor, tenantId: string, name: string): Promise<number> {
  const row = await db.selectFrom(TABLE).select('searched_generation').where('tenant_id', '=', tenantId).where('name', '=', name).executeTakeFirst();
  return row?.searched_generation ?? 0;
}

/**
 * Opens staging generation active + 1 when none is open. One conditional update: of two concurrent replaces, the
 * second waits for the first's row lock, then finds staging_generation set and updates nothing. Returns the new
 * staging generation, or undefined when a replace is already in progress or the collection does not exist.
 */
export async function openStaging(trx: Trx, tenantId: string, name: string): Promise<number | undefined> {
  const row = await trx
    .updateTable(TABLE)
    .set({
      staging_generation: sql<number>`active_generation + 1`,
      staging_status: 'uploading',
      staging_started_at: sql<Date>`now()`,
      staging_summary: null,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .where('staging_generation', 'is', null)
    .returning('staging_generation')
    .executeTakeFirst();
  return row?.staging_generation ?? undefined;
}

/** Marks the staging generation's upload finished, with its result; false when that generation is not uploading. */
export async function finishStaging(db: Executor, tenantId: string, name: string, generation: number, summary: unknown): Promise<boolean> {
  const result = await db
    .updateTable(TABLE)
    .set({ staging_status: 'uploaded', staging_summary: JSON.stringify(summary ?? {}), updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .where('staging_generation', '=', generation)
    .where('staging_status', '=', 'uploading')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends the replace: the staging generation becomes active (swap) or is dropped (cancel), in the caller's transaction. */
export async function closeStaging(trx: Trx, tenantId: string, name: string, activeGeneration: number): Promise<void> {
  await trx
    .updateTable(TABLE)
    .set({
      active_generation: activeGeneration,
      staging_generation: null,
      staging_status: null,
      staging_started_at: null,
      staging_summary: null,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .execute();
}

/** The active records of one generation of a collection by indexing status. */
export async function countGeneration(db: Executor, tenantId: string, collection: string, generation: number): Promise<IndexingSummary> {
  const { rows } = await sql<{ status: keyof IndexingSummary; n: number }>`
    select i.status, count(*)::int as n
    from records.records r
    join records.indexing i on i.record_id = r.id
    where r.tenant_id = ${tenantId} and r.collection = ${collection} and r.generation = ${generation} and r.status = 'active'
    group by i.status
  `.execute(db);
  const counts: IndexingSummary = { total: 0, pending: 0, processing: 0, indexed: 0, failed: 0 };
  for (const row of rows) {
    counts[row.status] += row.n;
    counts.total += row.n;
  }
  return counts;
}

/**
 * Permanently removes every record of the collection outside `keep` (the old generation, and records archived in
 * earlier cancelled replaces), with their indexing rows; returns how many records it removed.
 */
export async function deleteOtherGenerations(trx: Trx, tenantId: string, collection: string, keep: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (
      delete from records.records
      where tenant_id = ${tenantId} and collection = ${collection} and generation <> ${keep}
      returning id
    ), unindexed as (
      delete from records.indexing where record_id in (select id from gone)
    )
    select count(*)::int as n from gone
  `.execute(trx);
  return rows[0]!.n;
}
