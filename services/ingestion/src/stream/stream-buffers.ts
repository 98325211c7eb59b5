import { createHash } from 'node:crypto';
import type { Logger } from '@trove/platform';
import type { Ingestor, UploadTarget } from '../ingest/ingestor';
import type { Mapped } from '../ingest/record-mapping';
import { storableCopy } from '../ingest/storable';

/** One NDJSON line as it was read: the record made of it, or why it was rejected (kept for its dead letter). */
export interface StreamEntry {
  raw: unknown;
  mapped: Mapped;
}

/** Where a stream writes; streams of the two vocabularies to one collection keep separate buffers. */
export type StreamTarget = Pick<UploadTarget, 'identity' | 'collection' | 'recordType' | 'origin'>;

interface TargetBuffer {
  key: string;
  target: StreamTarget;
  entries: StreamEntry[];
  /** Records among the entries: what counts against the limit (rejected lines only wait for their dead letter). */
  records: number;
  /** Records taken by a flush that has not finished; they still count against the limit until written. */
  inFlight: number;
  /** Flushes of one buffer run one after another, each taking whatever is buffered when it starts. */
  chain: Promise<FlushOutcome>;
  queued: number;
}

export interface StreamBuffersOptions {
  ingestor: Ingestor;
  logger: Logger;
  /** Records a buffer holds at most, waiting and in flight (STREAM_BUFFER_LIMIT). */
  limit: number;
  /** A buffer holding this many records is flushed at once (INGEST_CHUNK_SIZE). */
  chunkSize: number;
  /** Every buffer is flushed this often (STREAM_FLUSH_INTERVAL_MS). */
  intervalMs: number;
}

/** Whether what a flush took was written, and the upload entry that holds its counts and dead letters. */
export interface FlushOutcome {
  written: boolean;
  uploadId?: string;
}

/**
 * One flushed object as its line of the flush's hash. Whatever an entry holds, this never throws: a flush that failed
 * on one entry would put them all back and fail the same way every time, and nothing buffered after it would be
 * written. What JSON.stringify cannot serialise (nesting deeper than the stack) is hashed as its dead letter keeps it.
 */
function jsonLine(raw: unknown): string {
  try {
    return JSON.stringify(raw) ?? 'null';
  } catch {
    return JSON.stringify(storableCopy(raw)) ?? 'null';
  }
}

export type AddOutcome = { added: true; size: number; full: boolean } | { added: false; size: number };

/**
 * The NDJSON stream buffers, one per tenant, collection and record type, in this process. A request's lines are
 * added all together or not at all, so a full buffer refuses a request without losing or splitting it. A flush writes
 * what is buffered through the same path as a batch upload (one upload entry per flush, source_type api), on a timer,
 * when a buffer holds a chunk, and on shutdown. A flush that fails before finishing puts its records back in front.
 */
export class StreamBuffers {
  private readonly buffers = new Map<string, TargetBuffer>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly opts: StreamBuffersOptions) {}

  private keyOf(t: StreamTarget): string {
    return JSON.stringify([t.identity.tenantId, t.collection, t.recordType, t.origin?.vocabulary ?? 'current']);
  }

  /** Adds a request's entries whole, unless its records would take the buffer over the limit. */
  add(target: StreamTarget, entries: StreamEntry[]): AddOutcome {
    const key = this.keyOf(target);
    let buf = this.buffers.get(key);
    const size = buf ? buf.records + buf.inFlight : 0;
    const incoming = entries.reduce((n, e) => n + (e.mapped.ok ? 1 : 0), 0);
    if (size + incoming > this.opts.limit) return { added: false, size };
    if (entries.length === 0) return { added: true, size, full: false };
    if (!buf) {
      buf = { key, target, entries: [], records: 0, inFlight: 0, chain: Promise.resolve({ written: true }), queued: 0 };
      this.buffers.set(key, buf);
    }
    // The latest caller's identity writes the flush: same tenant, and its scopes are the ones currently granted.
    buf.target = target;
    for (const e of entries) buf.entries.push(e);
    buf.records += incoming;
    return { added: true, size: size + incoming, full: buf.records >= this.opts.chunkSize };
  }

  /** Records buffered or in flight for a target. */
  size(target: StreamTarget): number {
    const buf = this.buffers.get(this.keyOf(target));
    return buf ? buf.records + buf.inFlight : 0;
  }

  /** Flushes a target's buffer after any flush already running; resolves whether what it took was written. */
  flush(target: StreamTarget): Promise<FlushOutcome> {
    const buf = this.buffers.get(this.keyOf(target));
    return buf ? this.enqueue(buf) : Promise.resolve({ written: true });
  }

  private enqueue(buf: TargetBuffer): Promise<FlushOutcome> {
    buf.queued++;
    const run = buf.chain.then(() => this.flushNow(buf));
    buf.chain = run.finally(() => {
      buf.queued--;
      if (buf.queued === 0 && buf.entries.length === 0 && buf.inFlight === 0 && this.buffers.get(buf.key) === buf) {
        this.buffers.delete(buf.key);
      }
    });
    return run;
  }

  private async flushNow(buf: TargetBuffer): Promise<FlushOutcome> {
    const entries = buf.entries;
    const records = buf.records;
    if (entries.length === 0) return { written: true };
    buf.entries = [];
    buf.records = 0;
    buf.inFlight += records;
    try {
      // The flush's file_hash: sha256 over the flushed objects, one JSON line each, in the order they arrived.
      const sha = createHash('sha256');
      const items = entries.map((e, index) => {
        sha.update(`${jsonLine(e.raw)}\n`);
        return { index, raw: e.raw, mapped: e.mapped };
      });
      const result = await this.opts.ingestor.ingest(
        { ...buf.target, sourceType: 'api', sourceName: null },
        items,
        () => `sha256:${sha.digest('hex')}`,
        { recordsTotal: items.length },
      );
      this.opts.logger.debug({ uploadId: result.upload_id, summary: result.summary }, 'stream buffer flushed');
      return { written: true, uploadId: result.upload_id };
    } catch (err) {
      buf.entries = entries.concat(buf.entries);
      buf.records += records;
      this.opts.logger.error({ err, records }, 'stream buffer flush failed; its records stay buffered');
      return { written: false };
    } finally {
      buf.inFlight -= records;
    }
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      for (const buf of this.buffers.values()) {
        if (buf.entries.length > 0 && buf.queued === 0) void this.enqueue(buf);
      }
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and flushes every buffer; returns once everything buffered was written or reported lost. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const buffers = [...this.buffers.values()];
    await Promise.all(buffers.map((buf) => this.enqueue(buf)));
    const lost = buffers.reduce((n, b) => n + b.records, 0);
    if (lost > 0) this.opts.logger.error({ records: lost }, 'stream records could not be flushed before shutdown');
  }
}
