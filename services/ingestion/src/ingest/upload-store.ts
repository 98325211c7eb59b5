import { sql, type Insertable, type Selectable } from 'kysely';
import type { ListPosition } from '@trove/platform';
import type { Db, UploadStatus, UploadsTable } from '../schema';
import type { ProgressSnapshot } from './progress';
import type { DeadLetter, UploadSummary } from './tally';

export type UploadRow = Selectable<UploadsTable>;

export type NewUpload = Pick<UploadsTable, 'id' | 'tenant_id' | 'collection' | 'record_type' | 'source_type' | 'source_name'> &
  Pick<Insertable<UploadsTable>, 'records_total' | 'bytes_read' | 'bytes_total'>;

export interface UploadOutcome {
  status: 'complete' | 'failed';
  summary: UploadSummary;
  file_hash: string | null;
  processing_time_ms: number;
  reconciliation_passed: boolean;
  pipeline_backpressure: boolean;
  /** The error's own text, for operators. */
  failure?: string;
  /** Why, in words a caller may read. */
  failure_reason?: string;
  /** Bytes read in all, where bytes are counted. */
  bytes_read: number | null;
  /** The size of the file or body, when it is known. */
  bytes_total?: number | null;
}

/** An upload starts as `processing`, before its first record is read. */
export async function createUpload(db: Db, upload: NewUpload): Promise<void> {
  await db.insertInto('ingestion.uploads').values(upload).execute();
}

/** Moves an upload from processing to complete or failed, with its final counts. */
export async function finishUpload(db: Db, id: string, outcome: UploadOutcome): Promise<Date> {
  const row = await db
    .updateTable('ingestion.uploads')
    .set({
      status: outcome.status,
      submitted: outcome.summary.submitted,
      accepted: outcome.summary.accepted,
      rejected: outcome.summary.rejected,
      dedup_skipped: outcome.summary.dedup_skipped,
      file_hash: outcome.file_hash,
      processing_time_ms: outcome.processing_time_ms,
      reconciliation_passed: outcome.reconciliation_passed,
      pipeline_backpressure: outcome.pipeline_backpressure,
      failure: outcome.failure ?? null,
      failure_reason: outcome.failure_reason ?? null,
      bytes_read: outcome.bytes_read,
      ...(outcome.bytes_total !== undefined && { bytes_total: outcome.bytes_total }),
      completed_at: new Date(),
    })
    .where('id', '=', id)
    .returning('completed_at')
    .executeTakeFirstOrThrow();
  return row.completed_at!;
}

/** Stores a running upload's counts so far and how far it has read; renews its heartbeat too. An ended upload is left as it is. */
export async function recordProgress(db: Db, id: string, progress: ProgressSnapshot): Promise<void> {
  await db
    .updateTable('ingestion.uploads')
    .set({
      submitted: progress.summary.submitted,
      accepted: progress.summary.accepted,
      rejected: progress.summary.rejected,
      dedup_skipped: progress.summary.dedup_skipped,
      bytes_read: progress.bytes_read,
      heartbeat_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .execute();
}

/** Renews the heartbeat of the uploads a process is running, so no sweep takes them for abandoned. */
export async function renewUploads(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('ingestion.uploads')
    .set({ heartbeat_at: sql`now()` })
    .where('id', 'in', ids)
    .where('status', '=', 'processing')
    .execute();
}

/** Why a failed upload stopped, when the process running it stopped first. */
export const INTERRUPTED = 'interrupted: the ingestion service running the upload stopped before it finished';

/**
 * Fails the uploads still processing whose heartbeat is older than `staleSeconds`: the process running them is gone.
 * Their counts are what they left: accepted the records their written chunks kept, rejected their dead letters.
 * Returns their ids.
 */
export async function failAbandonedUploads(db: Db, staleSeconds: number): Promise<string[]> {
  const result = await sql<{ id: string }>`
    with abandoned as (
      select u.id,
        (select coalesce(sum(cardinality(r.record_ids)), 0) from ingestion.upload_records r where r.upload_id = u.id)::int as accepted,
        (select count(*) from ingestion.dead_letters d where d.upload_id = u.id)::int as rejected
      from ingestion.uploads u
      where u.status = 'processing' and u.heartbeat_at < now() - make_interval(secs => ${staleSeconds})
      for update of u skip locked
    )
    update ingestion.uploads u
    set status = 'failed', failure = ${INTERRUPTED}, failure_reason = ${INTERRUPTED}, completed_at = now(),
        accepted = a.accepted, rejected = a.rejected, submitted = a.accepted + a.rejected,
        processing_time_ms = extract(epoch from now() - u.created_at) * 1000,
        reconciliation_passed = false, pipeline_backpressure = coalesce(u.pipeline_backpressure, false)
    from abandoned a
    where u.id = a.id
    returning u.id
  `.execute(db);
  return result.rows.map((r) => r.id);
}

export async function findUpload(db: Db, tenantId: string, id: string): Promise<UploadRow | undefined> {
  return db.selectFrom('ingestion.uploads').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** The tenant's uploads newest first (ties by id), of one status when given, after `after`: at most `limit` of them. */
export async function listUploads(
  db: Db,
  tenantId: string,
  opts: { status?: UploadStatus; after?: ListPosition; limit: number },
): Promise<UploadRow[]> {
  let query = db.selectFrom('ingestion.uploads').selectAll().where('tenant_id', '=', tenantId);
  if (opts.status) query = query.where('status', '=', opts.status);
  const after = opts.after;
  if (after) {
    query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function insertDeadLetters(db: Db, uploadId: string, letters: DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  await db
    .insertInto('ingestion.dead_letters')
    .values(
      letters.map((l) => ({ upload_id: uploadId, record_index: l.record_index, error: l.error, record_data: JSON.stringify(l.record_data) })),
    )
    .execute();
}

/** One page of an upload's dead letters in record_index order, after `afterIndex`. */
export async function deadLetterPage(db: Db, uploadId: string, afterIndex: number, limit: number): Promise<DeadLetter[]> {
  const rows = await db
    .selectFrom('ingestion.dead_letters')
    .select(['record_index', 'error', 'record_data'])
    .where('upload_id', '=', uploadId)
    .where('record_index', '>', afterIndex)
    .orderBy('record_index')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ record_index: r.record_index, error: r.error, record_data: r.record_data }));
}

/** Keeps the ids of the records one written chunk created or updated (its items from `firstIndex` on). */
export async function insertUploadRecords(db: Db, uploadId: string, firstIndex: number, recordIds: string[]): Promise<void> {
  if (recordIds.length === 0) return;
  await db.insertInto('ingestion.upload_records').values({ upload_id: uploadId, first_index: firstIndex, record_ids: recordIds }).execute();
}

/** Rows of upload_records (one per written chunk, up to 1,000 ids each) read per query. */
const UPLOAD_RECORDS_ROWS = 10;

/** The ids of the records an upload wrote, in pages of `pageSize` (the last one shorter), in item order. */
export async function* uploadRecordIds(db: Db, uploadId: string, pageSize: number): AsyncIterable<string[]> {
  let after = -1;
  let page: string[] = [];
  for (;;) {
    const rows = await db
      .selectFrom('ingestion.upload_records')
      .select(['first_index', 'record_ids'])
      .where('upload_id', '=', uploadId)
      .where('first_index', '>', after)
      .orderBy('first_index')
      .limit(UPLOAD_RECORDS_ROWS)
      .execute();
    for (const row of rows) {
      for (const id of row.record_ids) {
        page.push(id);
        if (page.length === pageSize) {
          yield page;
          page = [];
        }
      }
    }
    if (rows.length < UPLOAD_RECORDS_ROWS) break;
    after = rows[rows.length - 1]!.first_index;
  }
  if (page.length > 0) yield page;
}
