import { sql, type ColumnType, type Kysely, type Selectable } from 'kysely';
import { RECORD_COLUMNS, type RecordRow } from '../records/store';
import type { IndexingStatus, RecordsSchema } from '../shared/schema';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export type ExportFormat = 'csv' | 'json';
export type ExportStatus = 'processing' | 'completed' | 'failed';

/** An export job (migration 6 says what its columns are for). */
export interface ExportsTable {
  id: string;
  tenant_id: string;
  collection: string;
  format: ExportFormat;
  record_status: RecordRow['status'];
  generation: number;
  status: ColumnType<ExportStatus, ExportStatus | undefined, ExportStatus>;
  progress: ColumnType<number, number | undefined, number>;
  total: number;
  columns: ColumnType<string[] | null, string | null | undefined, string | null>;
  after_created_at: Nullable<Date>;
  after_id: Nullable<string>;
  parts: ColumnType<number, number | undefined, number>;
  bytes: ColumnType<number, number | undefined, number>;
  owner: Nullable<string>;
  heartbeat_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  failure: Nullable<string>;
  created_at: Timestamp;
  completed_at: Nullable<Date>;
  expires_at: Nullable<Date>;
}

export interface ExportPartsTable {
  export_id: string;
  seq: number;
  /** A Buffer from PostgreSQL, a Uint8Array from PGlite. */
  data: Uint8Array;
}

/** The records schema with the export tables, which only the export code reads. */
export type ExportDb = Kysely<RecordsSchema & { 'records.exports': ExportsTable; 'records.export_parts': ExportPartsTable }>;

export type ExportRow = Selectable<ExportsTable>;

/** Where a job's next page starts: after this record, in (created_at, id) order. */
export interface ExportPosition {
  createdAt: Date;
  id: string;
}

/** What a job exports: the tenant's records of one collection's generation with one status, created before the job. */
export interface ExportScope {
  tenant_id: string;
  collection: string;
  record_status: RecordRow['status'];
  generation: number;
  /** Records created after the job started are left out, so a collection that keeps growing still ends. */
  created_at: Date;
}

/** The scope's records, as a query on `records.records as r`. */
function scoped(db: ExportDb, scope: ExportScope, after: ExportPosition | undefined) {
  let query = db
    .selectFrom('records.records as r')
    .where('r.tenant_id', '=', scope.tenant_id)
    .where('r.collection', '=', scope.collection)
    .where('r.status', '=', scope.record_status)
    .where('r.generation', '=', scope.generation)
    .where('r.created_at', '<=', scope.created_at);
  if (after) {
    // Passed as text: a Date parameter depends on the driver's serialiser, and the cast states the type either way.
    query = query.where(sql<boolean>`(r.created_at, r.id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`);
  }
  return query;
}

/**
 * Creates a job for the collection's active generation, counting the records it will export, in one transaction.
 * Undefined when the tenant has no such collection.
 */
export async function createExport(
  db: ExportDb,
  job: { id: string; tenant_id: string; collection: string; format: ExportFormat; record_status: RecordRow['status'] },
): Promise<ExportRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const collection = await trx
      .selectFrom('records.collections')
      .select('active_generation')
      .where('tenant_id', '=', job.tenant_id)
      .where('name', '=', job.collection)
      .executeTakeFirst();
    if (!collection) return undefined;
    const { now } = (await sql<{ now: Date }>`select now()::timestamptz(3) as now`.execute(trx)).rows[0]!;
    const scope: ExportScope = { ...job, generation: collection.active_generation, created_at: now };
    const { total } = await scoped(trx, scope, undefined).select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return trx
      .insertInto('records.exports')
      .values({ ...job, generation: scope.generation, total: Number(total), created_at: now, heartbeat_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** The tenant's job, unless it has expired (the sweep may not have deleted it yet). */
export async function findExport(db: ExportDb, tenantId: string, id: string): Promise<ExportRow | undefined> {
  return db
    .selectFrom('records.exports')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
}

/** The tenant's jobs still processing, newest first. */
export async function activeExports(db: ExportDb, tenantId: string): Promise<ExportRow[]> {
  return db
    .selectFrom('records.exports')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'processing')
    .orderBy('created_at', 'desc')
    .execute();
}

/**
 * Takes up to `limit` jobs for `owner`: those still processing that no process holds (just created, or released by a
 * process that stopped cleanly) or whose holder stopped renewing them for `staleSeconds` (a crash). Each take counts
 * as an attempt. Oldest first; a job another replica is taking at the same moment is skipped, not waited for.
 */
export async function claimExports(db: ExportDb, owner: string, limit: number, staleSeconds: number): Promise<ExportRow[]> {
  if (limit <= 0) return [];
  // Fair between tenants: a waiting job of a tenant with fewer jobs running goes first (one with none before one
  // with one, and so on), oldest first among equals, so one tenant's many exports do not hold everyone else's back.
  const result = await sql<ExportRow>`
    update records.exports
    set owner = ${owner}::uuid, heartbeat_at = now(), attempts = attempts + 1
    where id in (
      select e.id from records.exports e
      where e.status = 'processing' and (e.owner is null or e.heartbeat_at < now() - make_interval(secs => ${staleSeconds}))
      order by (
        select count(*) from records.exports r
        where r.tenant_id = e.tenant_id and r.status = 'processing' and r.owner is not null
          and r.heartbeat_at >= now() - make_interval(secs => ${staleSeconds})
      ), e.created_at
      limit ${limit}
      for update of e skip locked
    )
    returning *
  `.execute(db);
  return result.rows;
}

/** Renews the lease of the jobs `owner` runs. */
export async function renewExports(db: ExportDb, owner: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('records.exports')
    .set({ heartbeat_at: sql`now()` })
    .where('owner', '=', owner)
    .where('status', '=', 'processing')
    .where(sql<boolean>`id = any(${ids}::uuid[])`)
    .execute();
}

/** Lets go of the jobs `owner` still holds, so the next process to look takes them at once rather than when stale. */
export async function releaseExports(db: ExportDb, owner: string): Promise<void> {
  await db.updateTable('records.exports').set({ owner: null }).where('owner', '=', owner).where('status', '=', 'processing').execute();
}

/** Keeps the CSV columns of a job, once gathered; false when `owner` no longer holds it. */
export async function setColumns(db: ExportDb, job: ExportRow, owner: string, columns: string[]): Promise<boolean> {
  const result = await db
    .updateTable('records.exports')
    .set({ columns: JSON.stringify(columns), heartbeat_at: sql`now()` })
    .where('id', '=', job.id)
    .where('owner', '=', owner)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A part of the file and where the job stands once it is written. */
export interface PartWrite {
  /** The part's number: the job's `parts` as the writer last read it. */
  seq: number;
  data: Buffer;
  /** Records written once this part is. */
  progress: number;
  /** The last record the part holds; undefined when it holds none (a header, or the closing of an empty array). */
  position: ExportPosition | undefined;
  /** The job's last part: it completes the job, whose file is kept until `ttlHours` from now. */
  last?: { ttlHours: number };
}

/**
 * Appends a part and moves the job's position and progress with it, in one transaction, so a job resumed later
 * starts exactly after the last record of its last committed part. False, writing nothing, when `owner` no longer
 * holds the job or its part count moved (another process took it over): the caller stops working on it.
 */
export async function writePart(db: ExportDb, job: ExportRow, owner: string, part: PartWrite): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('records.exports')
      .set({
        progress: part.progress,
        parts: part.seq + 1,
        bytes: sql`bytes + ${part.data.length}`,
        heartbeat_at: sql`now()`,
        ...(part.position ? { after_created_at: part.position.createdAt, after_id: part.position.id } : {}),
        ...(part.last
          ? {
              status: 'completed' as const,
              total: part.progress,
              owner: null,
              completed_at: sql`now()`,
              expires_at: sql`now() + make_interval(secs => ${part.last.ttlHours * 3600})`,
            }
          : {}),
      })
      .where('id', '=', job.id)
      .where('owner', '=', owner)
      .where('status', '=', 'processing')
      .where('parts', '=', part.seq)
      .executeTakeFirst();
    if (moved.numUpdatedRows === 0n) return false;
    await trx.insertInto('records.export_parts').values({ export_id: job.id, seq: part.seq, data: part.data }).execute();
    return true;
  });
}

/** Ends a job as failed, with the reason; its parts are deleted and the job row expires as a finished one does. */
export async function failExport(db: ExportDb, id: string, owner: string | undefined, failure: string, ttlHours: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('records.exports')
      .set({
        status: 'failed',
        failure,
        owner: null,
        completed_at: sql`now()`,
        expires_at: sql`now() + make_interval(secs => ${ttlHours * 3600})`,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing');
    if (owner !== undefined) update = update.where('owner', '=', owner);
    const result = await update.executeTakeFirst();
    if (result.numUpdatedRows > 0n) await trx.deleteFrom('records.export_parts').where('export_id', '=', id).execute();
  });
}

/** Deletes up to `limit` expired jobs with their parts; returns their ids. */
export async function deleteExpiredExports(db: ExportDb, limit: number): Promise<string[]> {
  const result = await sql<{ id: string }>`
    delete from records.exports
    where id in (select id from records.exports where expires_at <= now() order by expires_at limit ${limit} for update skip locked)
    returning id
  `.execute(db);
  return result.rows.map((r) => r.id);
}

/** A part's size in bytes, undefined when it is gone (the sweep deleted the job meanwhile). */
export async function partSize(db: ExportDb, id: string, seq: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('records.export_parts')
    .select(sql<number>`octet_length(data)`.as('size'))
    .where('export_id', '=', id)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.size;
}

/**
 * `length` bytes of a part from byte `offset` (0-based). The part is stored uncompressed (migration 6), so the slice
 * reads only its own TOAST chunks; and a slice small enough travels as a short-lived value, not a large object.
 */
export async function readPartSlice(db: ExportDb, id: string, seq: number, offset: number, length: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('records.export_parts')
    .select(sql<Uint8Array>`substring(data from ${offset + 1}::int for ${length}::int)`.as('data'))
    .where('export_id', '=', id)
    .where('seq', '=', seq)
    .executeTakeFirst();
  if (!row) return undefined;
  return Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
}

/**
 * The distinct flattened collection_data paths (format.ts, flattenData) of the scope's records in the position
 * range (after, until]; `until` undefined reads to the end. Gathered in the database, so only the paths travel.
 */
export async function dataPaths(db: ExportDb, scope: ExportScope, after: ExportPosition | undefined, until: ExportPosition | undefined): Promise<string[][]> {
  let page = scoped(db, scope, after).select('r.collection_data');
  if (until) page = page.where(sql<boolean>`(r.created_at, r.id) <= (${until.createdAt.toISOString()}::timestamptz, ${until.id}::uuid)`);
  const result = await sql<{ path: string[] }>`
    with recursive page as (${page}),
    walk (path, value) as (
      select array[e.key], e.value from page, jsonb_each(page.collection_data) e where jsonb_typeof(page.collection_data) = 'object'
      union all
      select w.path || e.key, e.value from walk w, jsonb_each(w.value) e where jsonb_typeof(w.value) = 'object'
    )
    select distinct path from walk where jsonb_typeof(value) <> 'object' or value = '{}'::jsonb
  `.execute(db);
  return result.rows.map((r) => r.path);
}

/** The position of the `offset`-th record after `after` (0 is the next one); undefined when there are not that many. */
export async function positionAt(db: ExportDb, scope: ExportScope, after: ExportPosition | undefined, offset: number): Promise<ExportPosition | undefined> {
  const row = await scoped(db, scope, after).select(['r.created_at', 'r.id']).orderBy('r.created_at').orderBy('r.id').offset(offset).limit(1).executeTakeFirst();
  return row ? { createdAt: row.created_at, id: row.id } : undefined;
}

/** A record of an export page; with `dataAsText`, its collection_data is the stored JSON text, not parsed. */
export type ExportRecordRow = Omit<RecordRow, 'collection_data'> & { collection_data: Record<string, unknown> | string };

/**
 * The next `limit` records of the scope after `after`, oldest first, in full with their indexing status. With
 * `dataAsText`, collection_data comes as PostgreSQL's JSON text: a JSON export writes it as it is, and neither the
 * driver's parse nor a stringify makes objects of it.
 */
export async function recordPage(
  db: ExportDb,
  scope: ExportScope,
  after: ExportPosition | undefined,
  limit: number,
  opts: { dataAsText?: boolean } = {},
): Promise<ExportRecordRow[]> {
  return scoped(db, scope, after)
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .select([
      ...RECORD_COLUMNS.filter((c) => c !== 'r.collection_data'),
      opts.dataAsText ? sql<string>`r.collection_data::text`.as('collection_data') : 'r.collection_data',
      sql<IndexingStatus>`i.status`.as('indexing_status'),
    ])
    .orderBy('r.created_at')
    .orderBy('r.id')
    .limit(limit)
    .execute();
}
