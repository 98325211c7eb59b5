import { randomUUID } from 'node:crypto';
import type { Logger } from '@trove/platform';
import type { Histogram } from 'prom-client';
import { toDto, type RecordRow } from '../records/store';
import { JSON_CLOSE, JSON_OPEN, csvHeader, csvRows, jsonRecords, recordJson } from './format';
import {
  claimExports,
  dataPaths,
  deleteExpiredExports,
  failExport,
  positionAt,
  recordPage,
  releaseExports,
  renewExports,
  setColumns,
  writePart,
  type ExportDb,
  type ExportPosition,
  type ExportRow,
  type ExportScope,
} from './store';

export interface ExportRunnerOptions {
  db: ExportDb;
  logger: Logger;
  /** How long a finished job's file is kept (EXPORT_TTL_HOURS). */
  ttlHours: number;
  /** A job whose process has not renewed it for this long is taken over (EXPORT_STALE_SECONDS). */
  staleSeconds: number;
  /** Jobs one process runs at once; more wait, processing, for a free slot here or on another replica. */
  concurrency?: number;
  /** A part of the file is written once this many bytes are waiting. */
  partBytes?: number;
  /** The output a page of records should come to: the page size follows the records' size. */
  pageBytes?: number;
  /** Records per CSV column-gathering statement. */
  columnPageRecords?: number;
  /** The most collection_data columns a CSV export may have; beyond, the job fails (JSON has no such limit). */
  maxColumns?: number;
  /** Observes each export's time from its request to its end, by format and outcome (completed or failed). */
  durations?: Histogram<'format' | 'status'>;
}

/** A job taken up this many times (each start after a stop or crash counts) fails rather than being taken up again. */
export const MAX_ATTEMPTS = 5;
const FIRST_PAGE_RECORDS = 50;
const MAX_PAGE_RECORDS = 1000;
const MIN_PAGE_RECORDS = 10;
const SWEEP_BATCH = 20;
/** Records turned into text at once. */
const TEXT_RECORDS = 32;

/** A reason the job cannot succeed however often it is tried: it fails with this message. */
class ExportFailure extends Error {}
/** The job is no longer this process's (another took it over, or it ended): stop without touching it. */
class LeaseLost extends Error {}
/** The process is stopping: leave the job where its last committed part left it, for the next process. */
class Stopping extends Error {}

/**
 * Runs export jobs in the background, in any replica. A job is written as parts of about `partBytes`, each committed
 * with the job's position and progress (store.ts, writePart), so a job this process stops working on (a clean
 * stop releases it; a crash leaves its lease to go stale) is resumed by whichever process takes it next, from its last
 * committed part, never writing a record twice. Memory per job is bounded by a page of records and one part, whatever
 * the export's size.
 *
 * Every `staleSeconds / 4` (and at once after a job is created here), each process renews the leases of the jobs it
 * runs, takes the jobs nobody runs while it has a free slot, and deletes the expired ones with their files.
 */
export class ExportRunner {
  /** This process's identity as a job's lease holder. */
  private readonly owner = randomUUID();
  private readonly running = new Map<string, Promise<void>>();
  private readonly opts: Required<Omit<ExportRunnerOptions, 'durations'>> & Pick<ExportRunnerOptions, 'durations'>;
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private again = false;
  private stopping = false;

  constructor(opts: ExportRunnerOptions) {
    this.opts = {
      concurrency: 2,
      partBytes: 1024 * 1024,
      pageBytes: 512 * 1024,
      columnPageRecords: 10_000,
      maxColumns: 10_000,
      ...opts,
    };
  }

  start(): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => this.kick(), (this.opts.staleSeconds * 1000) / 4);
    this.timer.unref();
    this.kick();
  }

  /** Looks for work now (a job was just created), or right after the look under way. */
  kick(): void {
    if (this.stopping || !this.timer) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.tick()
      .catch((err: unknown) => this.opts.logger.warn({ err }, 'renewing, taking or sweeping exports failed; trying again later'))
      .finally(() => {
        this.pass = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Stops taking jobs, lets each running one stop after the part it is writing, and releases them, so another process
   * (or this one's next start) resumes them at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
    await Promise.all(this.running.values());
    await releaseExports(this.opts.db, this.owner);
  }

  /** One renewal of this process's jobs, one take of waiting ones, one sweep of expired ones. */
  private async tick(): Promise<void> {
    const { db, logger, staleSeconds, concurrency } = this.opts;
    await renewExports(db, this.owner, [...this.running.keys()]);
    for (const job of await claimExports(db, this.owner, concurrency - this.running.size, staleSeconds)) {
      if (job.attempts > MAX_ATTEMPTS) {
        await failExport(db, job.id, this.owner, `export failed: it was interrupted or failed ${MAX_ATTEMPTS} times`, this.opts.ttlHours);
        this.observe(job, 'failed');
        logger.warn({ exportId: job.id }, 'export failed after too many attempts');
        continue;
      }
      if (job.attempts > 1) logger.info({ exportId: job.id, progress: job.progress, total: job.total }, 'resuming an export another process left');
      this.running.set(job.id, this.run(job).finally(() => this.running.delete(job.id)));
    }
    for (;;) {
      const deleted = await deleteExpiredExports(db, SWEEP_BATCH);
      if (deleted.length > 0) logger.info({ exports: deleted }, 'deleted expired exports and their files');
      if (deleted.length < SWEEP_BATCH) break;
    }
  }

  private async run(job: ExportRow): Promise<void> {
    const { db, logger } = this.opts;
    try {
      await this.write(job);
      this.observe(job, 'completed');
      logger.info({ exportId: job.id, format: job.format }, 'export completed');
    } catch (err) {
      if (err instanceof Stopping) return;
      if (err instanceof LeaseLost) {
        logger.warn({ exportId: job.id }, 'export taken over by another process; this one stops working on it');
        return;
      }
      if (err instanceof ExportFailure) {
        this.observe(job, 'failed');
        await failExport(db, job.id, this.owner, err.message, this.opts.ttlHours).catch((e: unknown) => logger.error({ err: e, exportId: job.id }, 'could not mark the export failed'));
        return;
      }
      // A database error, say: the job is no longer renewed here, so once stale it is taken up again, here or elsewhere.
      logger.error({ err, exportId: job.id }, 'export stopped by an error; it will be taken up again once its lease is stale');
    }
  }

  /** An export's time from its request to its end (a job resumed by another process counts from its request too). */
  private observe(job: ExportRow, status: 'completed' | 'failed'): void {
    this.opts.durations?.observe({ format: job.format, status }, Math.max(0, Date.now() - new Date(job.created_at).getTime()) / 1000);
  }

  /** Writes the rest of the job's file, from its last committed part. */
  private async write(job: ExportRow): Promise<void> {
    const { db, partBytes, pageBytes, ttlHours } = this.opts;
    const scope: ExportScope = { ...job, created_at: job.created_at };
    let columns = job.columns ?? [];
    if (job.format === 'csv' && job.columns === null) {
      columns = await this.gatherColumns(scope);
      if (!(await setColumns(db, job, this.owner, columns))) throw new LeaseLost();
    }
    let position: ExportPosition | undefined = job.after_id && job.after_created_at ? { createdAt: job.after_created_at, id: job.after_id } : undefined;
    let progress = job.progress;
    let seq = job.parts;
    const part = new PartBuffer(partBytes);
    let partRecords = 0;
    if (seq === 0) part.append(job.format === 'csv' ? csvHeader(columns) : JSON_OPEN);
    let pageSize = FIRST_PAGE_RECORDS;
    for (;;) {
      if (this.stopping) throw new Stopping();
      const rows = await recordPage(db, scope, position, pageSize, { dataAsText: job.format === 'json' });
      const done = rows.length < pageSize;
      const count = rows.length;
      const last = rows[count - 1];
      if (last) position = { createdAt: last.created_at, id: last.id };
      const before = part.length;
      // A few records at a time, each let go of once written: the text stays in small pieces and the rows die young
      // (a page held while it is written would outlive the collections of the young generation and be promoted, to
      // pile up as garbage until a full collection; bench/RESULTS.md, "Exports").
      while (rows.length > 0) {
        const batch = rows.splice(0, TEXT_RECORDS);
        part.append(
          job.format === 'csv'
            ? csvRows(batch.map((r) => toDto(r as RecordRow)), columns)
            : jsonRecords(batch.map((r) => recordJson(toDto({ ...r, collection_data: {} }), r.collection_data as string)), progress + partRecords),
        );
        partRecords += batch.length;
      }
      if (count > 0) {
        // Pages come to about pageBytes of output whatever the records' size, so a page of large records stays small.
        const perRecord = Math.max(1, (part.length - before) / count);
        pageSize = Math.max(MIN_PAGE_RECORDS, Math.min(MAX_PAGE_RECORDS, Math.floor(pageBytes / perRecord)));
      }
      if (done && job.format === 'json') part.append(JSON_CLOSE);
      if (done || part.length >= partBytes) {
        const written = await writePart(db, job, this.owner, {
          seq,
          data: part.bytes(),
          progress: progress + partRecords,
          position,
          last: done ? { ttlHours } : undefined,
        });
        if (!written) throw new LeaseLost();
        seq++;
        progress += partRecords;
        partRecords = 0;
        part.clear();
      }
      if (done) return;
    }
  }

  /**
   * The CSV's collection_data columns: every flattened path of the job's records, sorted, gathered in the database a
   * page of records at a time so no statement runs long and only distinct paths reach this process.
   */
  private async gatherColumns(scope: ExportScope): Promise<string[]> {
    const { db, columnPageRecords, maxColumns } = this.opts;
    const paths = new Set<string>();
    let after: ExportPosition | undefined;
    for (;;) {
      if (this.stopping) throw new Stopping();
      const until = await positionAt(db, scope, after, columnPageRecords - 1);
      for (const path of await dataPaths(db, scope, after, until)) {
        paths.add(path.join('.'));
        if (paths.size > maxColumns) {
          throw new ExportFailure(`the records have more than ${maxColumns} distinct collection_data fields, too many CSV columns; export them as json`);
        }
      }
      if (!until) break;
      after = until;
    }
    return [...paths].sort();
  }
}

/**
 * The part being written: text encoded into one buffer as it comes, kept and reused from part to part, so a job makes
 * no large object per part (a string joined from the pieces, or a fresh buffer) for the garbage collector to find.
 */
class PartBuffer {
  private buffer: Buffer;
  length = 0;

  constructor(capacity: number) {
    // A part is written once it reaches `capacity`, so it overshoots by at most one piece of text.
    this.buffer = Buffer.allocUnsafe(capacity + 64 * 1024);
  }

  append(text: string): void {
    const size = Buffer.byteLength(text, 'utf8');
    if (this.length + size > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + size));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** The part's bytes: a view, valid until the next clear() (the database driver has copied them by then). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }
}
