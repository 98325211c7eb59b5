import { sql, type Selectable } from 'kysely';
import type { RecordDto } from '@trove/contracts';
import { nameSearchText } from '../domain/search-terms';
import type { ListPosition } from '../domain/cursor';
import type { Executor, RecordsTable, Trx } from './schema';

export type RecordRow = Omit<Selectable<RecordsTable>, 'name_tsv'>;

const TABLE = 'records.records';

/** Every column but the search vector, which never leaves the database. */
const COLUMNS = [
  'id',
  'tenant_id',
  'name',
  'description',
  'description_llm',
  'collection',
  'record_type',
  'collection_data',
  'indexing_status',
  'status',
  'visibility',
  'generation',
  'source_name',
  'source_id',
  'source_url',
  'source_type',
  'version',
  'created_at',
  'updated_at',
] as const;

const RETURNING = sql.raw(COLUMNS.map((c) => `r.${c}`).join(', '));

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
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
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export interface NewRecord {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  description_llm: string;
  collection: string;
  record_type: string;
  collection_data: Record<string, unknown>;
  status: 'active' | 'draft';
  visibility: 'private' | 'public';
  generation: number;
  source_name: string | null;
  source_id: string | null;
  source_url: string | null;
  source_type: RecordRow['source_type'];
}

export async function insertRecord(trx: Trx, record: NewRecord): Promise<RecordRow> {
  return trx
    .insertInto(TABLE)
    .values({
      ...record,
      collection_data: JSON.stringify(record.collection_data),
      indexing_status: 'pending',
      version: 1,
      name_tsv: sql`to_tsvector('simple', ${nameSearchText(record.name)})`,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function findRecord(db: Executor, tenantId: string, id: string): Promise<RecordRow | undefined> {
  return db.selectFrom(TABLE).select(COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** The tenant's records among `ids`, locked until the transaction ends; ids of other tenants are simply absent. */
export async function lockRecords(trx: Trx, tenantId: string, ids: string[]): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  return trx
    .selectFrom(TABLE)
    .select(COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Writes new editable state for records already locked by this transaction: each gets the next version, goes back
 * to pending indexing and a fresh updated_at. One statement for any number of records.
 */
export async function saveEdits(trx: Trx, tenantId: string, rows: RecordRow[]): Promise<RecordRow[]> {
  if (rows.length === 0) return [];
  const input = rows.map((r) => ({
    id: r.id,
    name: r.name,
    name_text: nameSearchText(r.name),
    description: r.description,
    description_llm: r.description_llm,
    record_type: r.record_type,
    collection_data: r.collection_data,
    visibility: r.visibility,
    status: r.status,
    source_name: r.source_name,
    source_url: r.source_url,
  }));
  const result = await sql<RecordRow>`
    update records.records as r set
      name = x.name,
      name_tsv = to_tsvector('simple', x.name_text),
      description = x.description,
      description_llm = x.description_llm,
      record_type = x.record_type,
      collection_data = x.collection_data,
      visibility = x.visibility,
      status = x.status,
      source_name = x.source_name,
      source_url = x.source_url,
      indexing_status = 'pending',
      version = r.version + 1,
      updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(
      id uuid, name text, name_text text, description text, description_llm text, record_type text,
      collection_data jsonb, visibility text, status text, source_name text, source_url text
    )
    where r.tenant_id = ${tenantId} and r.id = x.id
    returning ${RETURNING}
  `.execute(trx);
  return result.rows;
}

/** Archives the tenant's records among `ids` that are not archived yet; returns those it archived. */
export async function archiveRecords(trx: Trx, tenantId: string, ids: string[]): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  return trx
    .updateTable(TABLE)
    .set({ status: 'archived', version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('status', '<>', 'archived')
    .returning(COLUMNS)
    .execute();
}

/** Sets the visibility of the tenant's live records among `ids` that have another one; returns those it changed. */
export async function setVisibility(trx: Trx, tenantId: string, ids: string[], visibility: RecordRow['visibility']): Promise<RecordRow[]> {
  if (ids.length === 0) return [];
  return trx
    .updateTable(TABLE)
    .set({ visibility, indexing_status: 'pending', version: sql`version + 1`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('status', '<>', 'archived')
    .where('visibility', '<>', visibility)
    .returning(COLUMNS)
    .execute();
}

/** Sends the tenant's live records whose indexing failed back to pending, each with a new version to index. */
export async function resetFailed(trx: Trx, tenantId: string): Promise<RecordRow[]> {
  return trx
    .updateTable(TABLE)
    .set({ indexing_status: 'pending', version: sql`version + 1` })
    .where('tenant_id', '=', tenantId)
    .where('indexing_status', '=', 'failed')
    .where('status', '<>', 'archived')
    .returning(COLUMNS)
    .execute();
}

/** Records search's acknowledgement, but only for the version the record is at now; returns whether it applied. */
export async function acknowledgeIndexing(
  db: Executor,
  ack: { tenantId: string; recordId: string; version: number; status: 'indexed' | 'failed' },
): Promise<boolean> {
  const result = await db
    .updateTable(TABLE)
    .set({ indexing_status: ack.status })
    .where('tenant_id', '=', ack.tenantId)
    .where('id', '=', ack.recordId)
    .where('version', '=', ack.version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface ListFilter {
  tenantId: string;
  status: RecordRow['status'];
  collection?: string;
  recordType?: string;
  /** A `to_tsquery('simple', …)` text over the name. */
  nameQuery?: string;
  after?: ListPosition;
  limit: number;
}

export type ListRow = Pick<RecordRow, 'id' | 'name' | 'collection' | 'record_type' | 'indexing_status' | 'created_at' | 'updated_at'>;

/** Newest first, by (created_at, id), starting after a position: keyset pagination, stable under inserts. */
export async function listRecords(db: Executor, filter: ListFilter): Promise<ListRow[]> {
  let query = db
    .selectFrom(TABLE)
    .select(['id', 'name', 'collection', 'record_type', 'indexing_status', 'created_at', 'updated_at'])
    .where('tenant_id', '=', filter.tenantId)
    .where('status', '=', filter.status);
  if (filter.collection !== undefined) query = query.where('collection', '=', filter.collection);
  if (filter.recordType !== undefined) query = query.where('record_type', '=', filter.recordType);
  if (filter.nameQuery !== undefined) query = query.where(sql<boolean>`name_tsv @@ to_tsquery('simple', ${filter.nameQuery})`);
  if (filter.after) {
    const { createdAt, id } = filter.after;
    // Passed as text: a Date parameter depends on the driver's serialiser, and the cast states the type either way.
    query = query.where(sql<boolean>`(created_at, id) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`);
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}
