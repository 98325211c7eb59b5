import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { BulkUpsertRequest, UploadResult, VocabularyName } from '@trove/contracts';
import { HttpError, SchedulerRefusal, type FairScheduler, type Identity, type Logger } from '@trove/platform';
import type { Counter, Histogram } from 'prom-client';
import { UnparseableFileError, type ParsedItem } from '../parsers/types';
import type { ChunkOutcome, RecordsWriter } from '../records';
import type { Db, UploadSourceType } from '../schema';
import { ChunkScheduler, type Pending } from './chunk-scheduler';
import { isPlainObject, mapRecord, type Mapped, type MappingOptions } from './record-mapping';
import { storableCopy } from './storable';
import { FirstDeadLetters, Tally, type DeadLetter, type UploadSummary } from './tally';
import { ProgressWriter } from './progress';
import { createUpload, finishUpload, insertDeadLetters, insertUploadRecords, recordProgress } from './upload-store';
import type { UploadAnnouncer } from './usage';

/** Where an upload's records go, on whose behalf, and how they are labelled. */
export interface UploadTarget {
  identity: Identity;
  collection: string;
  recordType: string;
  sourceType: UploadSourceType;
  sourceName: string | null;
  requestId?: string;
  /** performance.now() when the request began, so processing_time_ms covers reading the body too. */
  startedAt?: number;
  /** A blue-green replace's staging generation to write into (records' active generation when absent). */
  generation?: number;
  /**
   * Through which vocabulary the upload came: the older one's records are indexed by the pipeline's jobs, and a
   * collection it creates names itself in the older vocabulary too (records' bulk upsert, `pipeline`, `vocabulary`).
   * The current vocabulary when absent.
   */
  origin?: UploadOrigin;
}

export interface UploadOrigin {
  vocabulary: VocabularyName;
  pipeline: boolean;
}

/** One submitted item: its position in the upload, what was sent, and the record made of it or why there is none. */
export interface SubmittedItem {
  index: number;
  raw: unknown;
  mapped: Mapped;
}

/** Maps what a parser read onto submitted items, keeping the parser's own rejections as they are. */
export async function* submittedItems(parsed: AsyncIterable<ParsedItem>, opts: MappingOptions): AsyncIterable<SubmittedItem> {
  for await (const item of parsed) {
    yield item.ok
      ? { index: item.index, raw: item.data, mapped: mapRecord(item.data, opts) }
      : { index: item.index, raw: item.raw, mapped: { ok: false, error: item.error } };
  }
}

/** What an upload that read all it was sent answers: the contract's upload result (uploadResult of @trove/contracts). */
export type { UploadResult };

/**
 * What an upload knows of its size before it reads it, and how far it has read: the `progress` GET /uploads/{id} shows
 * (records read are the items submitted so far).
 */
export interface UploadProgress {
  /** Records in the upload, when known before they are read (a batch, a stream flush, a counted replace). */
  recordsTotal?: number;
  /** Bytes of the file or body, when known before they are read (a body received whole first). */
  bytesTotal?: number;
  /** Bytes of the file or body read so far, where the upload reads bytes. */
  bytesRead?: () => number;
}

/** What runs once every record is written and before the upload is stored as complete; throwing fails the upload. */
export type BeforeComplete = (result: UploadResult) => Promise<void>;

/** An upload stored as processing, whose items `run` reads and writes (once). */
export interface StartedUpload {
  readonly uploadId: string;
  run(items: AsyncIterable<SubmittedItem> | Iterable<SubmittedItem>, fileHash: () => string | Promise<string>, beforeComplete?: BeforeComplete): Promise<UploadResult>;
}

/** An upload stopped on purpose before it finished (its process stopping): it is stored as failed with this reason. */
export class UploadInterrupted extends Error {
  override name = 'UploadInterrupted';
}

/**
 * Why a failed upload stopped, as the API shows it (`failure`): what the caller can act on (a file found unparseable,
 * a refusal, an interruption); an unexpected error is named as such only, its text being for the log.
 */
export function failureReason(err: unknown): string {
  if (err instanceof UnparseableFileError || err instanceof UploadInterrupted) return err.message;
  if (err instanceof HttpError) {
    if (typeof err.detail === 'string') return err.detail;
    return err.detail.map((issue) => issue.msg).join('; ');
  }
  return 'stopped by an unexpected error in the ingestion service';
}

/**
 * The items of an upload failed (a file that proved unparseable, a body over the limit, a client that went away):
 * the upload is stored as failed with the counts so far, and records written before the failure stay written.
 */
export class UploadAborted extends Error {
  override name = 'UploadAborted';

  constructor(
    readonly uploadId: string,
    readonly summary: UploadSummary,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }

  /** Records of the upload that are stored (written, or already there unchanged). */
  get stored(): number {
    return this.summary.accepted + this.summary.dedup_skipped;
  }
}

/** Why a record became a dead letter, as trove_records_dead_lettered_total counts it. */
type DeadLetterReason = 'invalid' | 'refused' | 'unwritten' | 'unconfirmed';

/** What ingestion counts (docs/observability.md): records by outcome, dead letters by reason, uploads by duration. */
export interface IngestMetrics {
  /** Records stored, by outcome: created, updated, or skipped as unchanged. */
  records: Counter<'outcome'>;
  deadLettered: Counter<'reason'>;
  /** An upload's time from its request to its end, by source type and outcome (complete or failed). */
  uploads: Histogram<'source_type' | 'status'>;
}

export interface IngestorDeps {
  db: Db;
  writer: RecordsWriter;
  logger: Logger;
  /** Records per call to records (INGEST_CHUNK_SIZE). */
  chunkSize: number | (() => number);
  /** Characters of record JSON per call to records at most (default CHUNK_MAX_CHARACTERS). */
  chunkMaxCharacters?: number;
  /** Indexing backlog above which a result reports pipeline_backpressure (INDEXING_BACKLOG_THRESHOLD). */
  backlogThreshold: number;
  /** Announces each completed upload to usage.events (usage.ts); without it, completions are not announced. */
  announceCompleted?: UploadAnnouncer;
  /**
   * Shares the writes to records between tenants (a chunk waits for its tenant's turn); without it chunks are written
   * as they come.
   */
  chunkShares?: Pick<FairScheduler, 'run'>;
  /**
   * Resolves once no other tenant is being served, or after maxMs (yieldToOthers): every chunk of an upload after its
   * first waits for it, at most as long as the upload's last chunk took. Without it chunks never wait.
   */
  stepAside?: (tenantId: string, maxMs: number) => Promise<void>;
  metrics?: IngestMetrics;
}

/**
 * Reading an upload runs in promise continuations only while its bytes are already buffered (a parser's stream, the
 * mapping of each item), which never lets the event loop read a socket: measured on the embedded default, a 10 MB CSV
 * held the process for 300-450 ms at a time while every other tenant's request waited. After this long without a turn
 * of the event loop, the reading waits for one (setImmediate).
 */
const MAX_READ_WITHOUT_YIELD_MS = 5;

/** How long a chunk may step aside for other tenants at most, whatever its upload's last chunk took. */
const MAX_STEP_ASIDE_MS = 1_000;

/** An upload's pace: its chunks so far and how long the last one took to write. */
interface Pace {
  chunks: number;
  lastMs: number;
}

/** Dead letters are written to the database in batches of this size as they occur, never all held in memory. */
const DEAD_LETTER_BATCH = 500;

/** A dead letter's record_data is the submitted object; anything else (a bad NDJSON line) is kept under `value`. */
function recordData(raw: unknown): Record<string, unknown> {
  const copy = storableCopy(raw);
  return isPlainObject(copy) ? copy : { value: copy };
}

/** Collects one upload's dead letters: batches them into the database and keeps the first ones for the result. */
class DeadLetterSink {
  private batch: DeadLetter[] = [];
  readonly first = new FirstDeadLetters();

  constructor(
    private readonly db: Db,
    private readonly uploadId: string,
    private readonly counted?: Counter<'reason'>,
  ) {}

  async add(index: number, raw: unknown, error: string, reason: DeadLetterReason): Promise<void> {
    this.counted?.inc({ reason });
    const letter = { record_index: index, error, record_data: recordData(raw) };
    this.first.add(letter);
    this.batch.push(letter);
    if (this.batch.length >= DEAD_LETTER_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const letters = this.batch;
    this.batch = [];
    await insertDeadLetters(this.db, this.uploadId, letters);
  }
}

/**
 * Runs one upload: stores it as processing, reads the items as they come, writes them to records in chunks (one call
 * and one transaction each, scheduled by ChunkScheduler) and stores it as complete with its counts. Reading continues
 * into the next chunk while one is being written; up to MAX_CHUNKS_IN_FLIGHT chunks are written at once when they
 * share no record, and reading goes no further, so memory holds about four chunks whatever the size of the upload. When
 * the records service does not confirm a chunk, every record of that chunk becomes a dead letter; the upload goes on. An error from
 * the items themselves (an unparseable file, a body over the limit, a client that went away) or from storing the
 * upload marks it failed and is thrown as UploadAborted.
 */
export class Ingestor {
  /** The uploads this process is running, whose heartbeat UploadWatch renews. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: IngestorDeps) {}

  runningUploads(): string[] {
    return [...this.running];
  }

  /** Stores the upload as processing, reads its items and writes them: begin() and run() in one. */
  async ingest(
    target: UploadTarget,
    items: AsyncIterable<SubmittedItem> | Iterable<SubmittedItem>,
    fileHash: () => string | Promise<string>,
    progress: UploadProgress = {},
  ): Promise<UploadResult> {
    return (await this.begin(target, progress)).run(items, fileHash);
  }

  /**
   * Stores a new upload as processing and answers it, its items still to be run: an upload answered asynchronously
   * has its id before a record is read. One that is never run is failed by the sweep of abandoned uploads (UploadWatch).
   */
  async begin(target: UploadTarget, progress: UploadProgress = {}): Promise<StartedUpload> {
    const startedAt = target.startedAt ?? performance.now();
    const uploadId = randomUUID();
    await createUpload(this.deps.db, {
      id: uploadId,
      tenant_id: target.identity.tenantId,
      collection: target.collection,
      record_type: target.recordType,
      source_type: target.sourceType,
      source_name: target.sourceName,
      records_total: progress.recordsTotal ?? null,
      bytes_total: progress.bytesTotal ?? null,
      bytes_read: progress.bytesRead ? 0 : null,
    });
    let ran = false;
    return {
      uploadId,
      run: async (items, fileHash, beforeComplete) => {
        if (ran) throw new Error(`upload ${uploadId} has already run`);
        ran = true;
        this.running.add(uploadId);
        try {
          return await this.run(uploadId, target, items, fileHash, startedAt, progress, beforeComplete);
        } finally {
          this.running.delete(uploadId);
        }
      },
    };
  }

  private async run(
    uploadId: string,
    target: UploadTarget,
    items: AsyncIterable<SubmittedItem> | Iterable<SubmittedItem>,
    fileHash: () => string | Promise<string>,
    startedAt: number,
    progress: UploadProgress,
    beforeComplete: BeforeComplete | undefined,
  ): Promise<UploadResult> {
    const tally = new Tally();
    const bytesRead = () => progress.bytesRead?.() ?? null;
    // The counts so far and how far the upload has read, for GET /uploads/{id} in any process.
    const progressWriter = new ProgressWriter(
      () => ({ summary: tally.summary(), bytes_read: bytesRead() }),
      (snapshot) => recordProgress(this.deps.db, uploadId, snapshot),
      (err) => this.deps.logger.warn({ err, uploadId }, "could not store an upload's progress; trying again"),
    );
    let hash = '';
    const letters = new DeadLetterSink(this.deps.db, uploadId, this.deps.metrics?.deadLettered);
    const pace: Pace = { chunks: 0, lastMs: 0 };
    const chunks = new ChunkScheduler({
      chunkSize: this.deps.chunkSize,
      maxCharacters: this.deps.chunkMaxCharacters,
      write: (chunk) => this.writeChunk(uploadId, target, chunk, tally, letters, pace),
    });

    let result: UploadResult;
    progressWriter.start();
    try {
      let yieldedAt = performance.now();
      for await (const item of items) {
        if (performance.now() - yieldedAt > MAX_READ_WITHOUT_YIELD_MS) {
          await setImmediate();
          yieldedAt = performance.now();
        }
        tally.submitted++;
        if (!item.mapped.ok) {
          tally.rejected++;
          await letters.add(item.index, item.raw, item.mapped.error, 'invalid');
          continue;
        }
        await chunks.add({ index: item.index, raw: item.raw, record: item.mapped.record });
      }
      await chunks.finish();
      await letters.flush();
      hash = await fileHash();
      result = {
        upload_id: uploadId,
        status: 'complete',
        summary: tally.summary(),
        errors: letters.first.list(),
        metadata: {
          processing_time_ms: elapsed(startedAt),
          file_hash: hash,
          reconciliation_passed: tally.reconciliationPassed(),
          pipeline_backpressure: tally.backpressure(this.deps.backlogThreshold),
        },
      };
      await progressWriter.stop();
      await beforeComplete?.(result);
    } catch (err) {
      await chunks.settled();
      await progressWriter.stop();
      await letters.flush().catch(() => undefined);
      await finishUpload(this.deps.db, uploadId, {
        status: 'failed',
        summary: tally.summary(),
        file_hash: null,
        processing_time_ms: elapsed(startedAt),
        reconciliation_passed: false,
        pipeline_backpressure: tally.backpressure(this.deps.backlogThreshold),
        failure: err instanceof Error ? err.message : String(err),
        failure_reason: failureReason(err),
        bytes_read: bytesRead(),
      }).catch((e) => this.deps.logger.error({ err: e, uploadId }, 'could not mark the upload failed'));
      this.deps.metrics?.uploads.observe({ source_type: target.sourceType, status: 'failed' }, (performance.now() - startedAt) / 1000);
      throw new UploadAborted(uploadId, tally.summary(), err);
    }

    await this.deps.db.transaction().execute(async (trx) => {
      const read = bytesRead();
      const at = await finishUpload(trx, uploadId, {
        status: 'complete',
        summary: result.summary,
        ...result.metadata,
        bytes_read: read,
        // Read to its end, a body's size is what was read of it.
        bytes_total: progress.bytesTotal ?? read,
      });
      await this.deps.announceCompleted?.(trx, { tenantId: target.identity.tenantId, uploadId, at });
    });
    this.deps.metrics?.uploads.observe({ source_type: target.sourceType, status: 'complete' }, (performance.now() - startedAt) / 1000);
    return result;
  }

  /**
   * Writes one chunk in one call. Every record in it already passed the contract the records service checks (mapRecord),
   * so when that service does not write the chunk (unreachable, failing, or refusing it), the whole chunk is
   * dead-lettered and the upload fails reconciliation.
   * A large upload's later chunks first step aside while another tenant is served (stepAside): a batch of a hundred
   * records is one chunk and never waits, a file of thousands waits between its chunks, and the reading of the file
   * waits with them (ChunkScheduler holds at most a few chunks).
   */
  private async writeChunk(uploadId: string, target: UploadTarget, chunk: Pending[], tally: Tally, letters: DeadLetterSink, pace: Pace): Promise<void> {
    if (pace.chunks++ > 0) await this.deps.stepAside?.(target.identity.tenantId, Math.min(pace.lastMs, MAX_STEP_ASIDE_MS));
    const startedAt = performance.now();
    const request: BulkUpsertRequest = {
      collection: target.collection,
      record_type: target.recordType,
      source_type: target.sourceType,
      source_name: target.sourceName,
      records: chunk.map((p) => p.record),
      // Back-pressure only asks whether the backlog is above the threshold.
      backlog_count_limit: this.deps.backlogThreshold + 1,
      ...(target.generation !== undefined ? { generation: target.generation } : {}),
      ...(target.origin?.pipeline && { pipeline: true }),
      ...(target.origin?.vocabulary === 'older' && { vocabulary: 'older' as const }),
    };
    const write = () => this.deps.writer.upsert(target.identity, request, target.requestId);
    const shares = this.deps.chunkShares;
    const outcome: ChunkOutcome = shares
      ? await shares.run(target.identity.tenantId, write).catch((err: unknown) => {
          // Waited longer than an upload may take: written as not written, like any chunk records did not take.
          if (err instanceof SchedulerRefusal) return { kind: 'failed', reason: err.message };
          throw err;
        })
      : await write();
    pace.lastMs = performance.now() - startedAt;
    if (outcome.kind === 'failed') {
      this.deps.logger.warn({ uploadId, records: chunk.length, reason: outcome.reason }, 'a chunk was not written');
      tally.unwritten(chunk.length);
      for (const p of chunk) await letters.add(p.index, p.raw, `not written: ${outcome.reason}`, 'unwritten');
      return;
    }
    const { results, pending_indexing } = outcome.response;
    const reported = results.slice(0, chunk.length);
    tally.observeBacklog(pending_indexing);
    // The ids it created or updated, in item order: what the older pipeline routes and answers are about.
    const written: string[] = [];
    const outcomes = { created: 0, updated: 0, skipped: 0 };
    for (const [i, r] of reported.entries()) {
      if (r.status === 'refused') {
        // The tenant's plan allows no more records: answered for this record, so the upload still reconciles.
        tally.refused();
        await letters.add(chunk[i]!.index, chunk[i]!.raw, r.reason, 'refused');
        continue;
      }
      tally.written([r.status]);
      outcomes[r.status]++;
      if (r.status !== 'skipped') written.push(r.id);
    }
    const counted = this.deps.metrics?.records;
    if (counted) for (const [outcome, n] of Object.entries(outcomes)) if (n > 0) counted.inc({ outcome }, n);
    await insertUploadRecords(this.deps.db, uploadId, chunk[0]!.index, written);
    const unreported = chunk.slice(results.length);
    tally.unwritten(unreported.length);
    for (const p of unreported) await letters.add(p.index, p.raw, 'not confirmed: records did not report an outcome for this record', 'unconfirmed');
  }
}

function elapsed(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 100) / 100;
}
