import { sql, type Selectable } from 'kysely';
import { copyInto } from '@trove/db';
import type { ListPosition } from '@trove/platform';
import type { Filter, RecordDto } from '@trove/contracts';
import { markPending, startIndexing } from '../indexing/store';
import { byId } from '../shared/lock-order';
import type { Executor, IndexingStatus, RecordsTable, Trx } from '../shared/schema';
import { contentHash } from './content-hash';
import { dataFilterCondition } from './data-filters';
import { nameVector } from './search-terms';

/**
 * A record as the service handles it: the search vector and the content hash are derived and stay in the store; the
 * indexing status comes from records.indexing.
 */
export type RecordRow = Omit<Selectable<RecordsTable>, 'name_tsv' | 'content_hash'> & { indexing_status: IndexingStatus };

const TABLE = 'records.records';

/** Every column of the records table but the derived ones (search vector, content hash), which never leave the store. */
const COLUMNS = [
  'id',
  'tenant_id',
  'name',
  'description',
  'description_llm',
  'collection',
  'record_type',
  'collection_data',
  'status',
  'visibility',
  'generation',
  'source_name',
  'source_id',
  'source_url',
  'source_type',
  'version',
  'claim_status',
  'created_at',
  'updated_at',
] as const;

const QUALIFIED = COLUMNS.map((c) => `r.${c}` as const);

/** A record's columns of `records.records as r`, for the stores that read whole records beside this one (toDto). */
export const RECORD_COLUMNS: readonly (typeof QUALIFIED)[number][] = QUALIFIED;

/** What a write returns of the records it changed: every write sets their indexing back to pending (markPending). */
const RETURNING = sql.raw(`${QUALIFIED.join(', ')}, 'pending' as indexing_status`);
const PENDING = sql<IndexingStatus>`'pending'`.as('indexing_status');
export const WRITTEN = [...COLUMNS, PENDING] as const;

/** Records with their indexing status, for reading. */
function selectRecords(db: Executor) {
  return db
    .selectFrom('records.records as r')
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .select([...QUALIFIED, 'i.status as indexing_status']);
}

let lastDate: Date | undefined;
let lastIso = '';

/** A timestamp as ISO text. The records one write creates share one Date, so its text is worked out once. */
function iso(value: Date | string): string {
  if (value === lastDate) return lastIso;
  if (!(value instanceof Date)) return new Date(value).toISOString();
  lastDate = value;
  lastIso = value.toISOString();
  return lastIso;
}

/** The full record as the API answers it and as records.changed carries it. */
export function toDto(row: RecordRow): RecordDto {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    description: row.description,
    description_llm: row.description_llm,
    collection: row.collection,
    record_type: row.record_type,
    collection_data: row.collection_data,
    indexing_status: row.indexing_status,
    status: row.status,
    visibility: row.visibility,
    generation: row.generation,
    source_name: row.source_name,
    source_id: row.source_id,
    source_url: row.source_url,
    source_type: row.source_type,
    version: row.version,
    ...(row.claim_status !== null && { claim_status: row.claim_status }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** What the records one write creates have in common: where they belong and where they came from. */
export interface NewRecordsShared {
  tenant_id: string;
  collection: string;
  record_type: string;
  status: 'active' | 'draft';
  visibility: 'private' | 'public';
  generation: number;
  source_name: string | null;
  source_type: RecordRow['source_type'];
  /** Set by a client of the older vocabulary creating an entity; null otherwise. */
  claim_status: RecordRow['claim_status'];
}

/** What each created record has of its own. */
export interface NewRecord {
  id: string;
  name: string;
  description: string | null;
  description_llm: string;
  collection_data: Record<string, unknown>;
  content_hash: string;
  source_id: string | null;
  source_url: string | null;
}

/** The transaction's timestamp as the records it writes store it (now(), to the millisecond). */
export async function transactionTime(trx: Trx): Promise<Date> {
  const result = await sql<{ now: Date }>`select now()::timestamptz(3) as now`.execute(trx);
  return result.rows[0]!.now;
}

/** The columns insertRecords writes, in its rows' order. */
const INSERTED = [
  'id', 'tenant_id', 'name', 'name_tsv', 'description', 'description_llm', 'collection', 'record_type', 'collection_data',
  'content_hash', 'status', 'visibility', 'generation', 'source_name', 'source_id', 'source_url', 'source_type',
  'version', 'claim_status', 'created_at', 'updated_at',
] as const;

/** Source ids in one fixed order (code units), nulls last: see insertRecords. */
const bySourceId = (a: NewRecord, b: NewRecord) =>
  a.source_id === b.source_id ? 0 : a.source_id === null ? 1 : b.source_id === null ? -1 : a.source_id < b.source_id ? -1 : 1;

/**
 * Creates records, pending indexing at version 1, with one COPY for any number of them (PostgreSQL does less work
 * per row than for an INSERT reading them from a JSON parameter; measured in bench/RESULTS.md, "rows written with
 * COPY"). Returns the records as stored without reading them back: every value is known here, the timestamps being
 * the transaction's (`now`).
 */
export async function insertRecords(trx: Trx, shared: NewRecordsShared, records: NewRecord[], now: Date): Promise<RecordRow[]> {
  if (records.length === 0) return [];
  // Writers creating records with the same source ids enter them into the unique index in one order, so one waits
  // for the other instead of both deadlocking.
  const ordered = [...records].sort(bySourceId);
  const at = now.toISOString();
  await copyInto(
    trx,
    'records.records',
    INSERTED,
    ordered.map((r) => [
      r.id, shared.tenant_id, r.name, nameVector(r.name), r.description, r.description_llm, shared.collection,
      shared.record_type, r.collection_data, r.content_hash, shared.status, shared.visibility, shared.generation,
      shared.source_name, r.source_id, r.source_url, shared.source_type, 1, shared.claim_status, at, at,
    ]),
  );
  const created = records.map((r) => ({
    id: r.id,
    tenant_id: shared.tenant_id,
    name: r.name,
    description: r.description,
    description_llm: r.description_llm,
    collection: shared.collection,
    record_type: shared.record_type,
    collection_data: r.collection_data,
    indexing_status: 'pending',
    status: shared.status,
    visibility: shared.visibility,
    generation: shared.generation,
    source_name: shared.source_name,
    source_id: r.source_id,
    source_url: r.source_url,
    source_type: shared.source_type,
    version: 1,
    claim_status: shared.claim_status,
    created_at: now,
    updated_at: now,
  })) satisfies RecordRow[];
  await startIndexing(trx, shared.tenant_id, created);
  return created;
}

/**
 * Serialises, in one tenant's collection, the writes that dedup by content and the API's creates with a source_id
 * (which answer 409 rather than update), so two concurrent writers never both create a record for the same content.
 * Uploads whose every record has a source_id do not take it: the unique index on live source ids keeps them apart.
 * Held until commit.
 */
export async function lockCollectionWrites(trx: Trx, tenantId: string, collection: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`records.collection-writes:${tenantId}:${collection}`}, 0))`.execute(trx);
}

/** The content a dedup decision needs of a live record. */
export interface ContentMatch {
  id: string;
  source_id: string | null;
  record_type: string;
  content_hash: string;
}

/**
 * The tenant's live (not archived) records of a collection's generation with one of the source ids. One probe of the
 * unique index per id: the lateral subquery keeps that plan even when the table's statistics are stale (as during a
 * first large upload), where a plain `= any(…)` may be planned as a scan of the tenant's whole collection.
 */
export async function findLiveBySourceIds(
  db: Executor,
  tenantId: string,
  collection: string,
  generation: number,
  sourceIds: string[],
): Promise<ContentMatch[]> {
  if (sourceIds.length === 0) return [];
  const result = await sql<ContentMatch>`
    select r.id, r.source_id, r.record_type, r.content_hash
    from unnest(${sourceIds}::text[]) as s(source_id)
    cross join lateral (
      select id, source_id, record_type, content_hash from records.records
      where tenant_id = ${tenantId} and collection = ${collection} and generation = ${generation}
        and source_id = s.source_id and status <> 'archived'
      limit 1
    ) as r
  `.execute(db);
  return result.rows;
}

export async function findRecord(db: Executor, tenantId: string, id: string): Promise<RecordRow | undefined> {
  return selectRecords(db).where('r.tenant_id', '=', tenantId).where('r.id', '=', id).executeTakeFirst();
}

/** The tenant's records among `ids`, locked until the transaction ends; ids of other tenants are simply absent. */
export async function lockRecords(trx: Trx, tenantId: string, ids: string[]): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  return selectRecords(trx).where('r.tenant_id', '=', tenantId).where('r.id', 'in', ids).orderBy('r.id').forUpdate('r').execute();
}

/** The columns a write may give stored records new values of (an edit may change each), with their types in its rows. */
const UPDATABLE = {
  name: 'text',
  description: 'text',
  description_llm: 'text',
  record_type: 'text',
  collection_data: 'jsonb',
  content_hash: 'text',
  visibility: 'text',
  status: 'text',
  source_name: 'text',
  source_url: 'text',
  claim_status: 'text',
} as const;

type UpdatableColumn = keyof typeof UPDATABLE;

/**
 * Writes new values of `columns` into the tenant's live records, by id: each gets the next version, goes back to
 * pending indexing and a fresh updated_at, and its search vector follows its name. A column of `keep` that a row
 * leaves undefined keeps what is stored. One statement for any number of records; archived ones are left alone and
 * absent from the result.
 */
export async function updateRecords<C extends UpdatableColumn>(
  trx: Trx,
  tenantId: string,
  columns: readonly C[],
  rows: ReadonlyArray<{ id: string } & { [K in C]: unknown }>,
  keep: readonly Exclude<C, 'name'>[] = [],
): Promise<RecordRow[]> {
  if (rows.length === 0) return [];
  const renames = columns.includes('name' as C);
  // In id order, the order every other multi-record write locks in, so concurrent writers do not deadlock.
  const input = rows
    .map((r) => {
      const row: { id: string } & Record<string, unknown> = { id: r.id };
      for (const c of columns) row[c] = r[c];
      if (renames) row.name_tsv = nameVector(row.name as string);
      return row;
    })
    .sort(byId);
  const kept = new Set<string>(keep);
  const set = columns.map((c) => sql`${sql.id(c)} = ${kept.has(c) ? sql`coalesce(${sql.ref(`x.${c}`)}, ${sql.ref(`r.${c}`)})` : sql.ref(`x.${c}`)}`);
  const fields = columns.map((c) => sql`${sql.id(c)} ${sql.raw(UPDATABLE[c])}`);
  if (renames) {
    set.push(sql`name_tsv = x.name_tsv::tsvector`);
    fields.push(sql`name_tsv text`);
  }
  const result = await sql<RecordRow>`
    update records.records as r set ${sql.join(set)}, version = r.version + 1, updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(id uuid, ${sql.join(fields)})
    where r.tenant_id = ${tenantId} and r.id = x.id and r.status <> 'archived'
    returning ${RETURNING}
  `.execute(trx);
  return markPending(trx, tenantId, result.rows);
}

/**
 * Writes new editable state, every updatable column, for records already locked by this transaction (PATCH
 * /records/{id}, PATCH /records/bulk and their twins), with updateRecords.
 */
export async function saveEdits(trx: Trx, tenantId: string, rows: RecordRow[]): Promise<RecordRow[]> {
  const columns = Object.keys(UPDATABLE) as UpdatableColumn[];
  return updateRecords(
    trx,
    tenantId,
    columns,
    rows.map((r) => ({ ...r, content_hash: contentHash(r) })),
  );
}

/** Archives the tenant's records among `ids` that are not archived yet; returns those it archived. */
export async function archiveRecords(trx: Trx, tenantId: string, ids: string[]): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable(TABLE)
    .set({ status: 'archived', version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('status', '<>', 'archived')
    .returning(WRITTEN)
    .execute();
  return markPending(trx, tenantId, rows);
}

export interface ListFilter {
  tenantId: string;
  status: RecordRow['status'];
  collection?: string;
  recordType?: string;
  /** A tsquery text over the name (search-terms.ts). */
  nameQuery?: string;
  /** Filters on collection_data, all of which must hold (data-filters.ts). */
  data?: Filter[];
  after?: ListPosition;
  limit: number;
}

export type ListRow = Pick<RecordRow, 'id' | 'name' | 'collection' | 'record_type' | 'indexing_status' | 'created_at' | 'updated_at'>;

/** Newest first, by (created_at, id), starting after a position: keyset pagination, stable under inserts. */
export async function listRecords(db: Executor, filter: ListFilter): Promise<ListRow[]> {
  let query = db
    .selectFrom('records.records as r')
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .innerJoin('records.collections as c', (j) => j.onRef('c.tenant_id', '=', 'r.tenant_id').onRef('c.name', '=', 'r.collection'))
    .select(['r.id', 'r.name', 'r.collection', 'r.record_type', 'i.status as indexing_status', 'r.created_at', 'r.updated_at'])
    .where('r.tenant_id', '=', filter.tenantId)
    .where('r.status', '=', filter.status)
    // A replace's staging generation (above the active one) is listed only once it is swapped in, as search shows it.
    .whereRef('r.generation', '<=', 'c.active_generation');
  if (filter.collection !== undefined) query = query.where('r.collection', '=', filter.collection);
  if (filter.recordType !== undefined) query = query.where('r.record_type', '=', filter.recordType);
  if (filter.nameQuery !== undefined) query = query.where(sql<boolean>`r.name_tsv @@ ${filter.nameQuery}::tsquery`);
  if (filter.data !== undefined && filter.data.length > 0) query = query.where(dataFilterCondition(filter.data));
  if (filter.after) {
    const { createdAt, id } = filter.after;
    // Passed as text: a Date parameter depends on the driver's serialiser, and the cast states the type either way.
    query = query.where(sql<boolean>`(r.created_at, r.id) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`);
  }
  return query.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(filter.limit).execute();
}
