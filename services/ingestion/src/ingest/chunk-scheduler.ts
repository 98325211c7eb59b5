import { BULK_UPSERT_MAX_BYTES } from '@trove/contracts';
import type { UpsertItem } from './record-mapping';

/** A record on its way to records: its position in the upload, what was sent, and the record made of it. */
export interface Pending {
  index: number;
  raw: unknown;
  record: UpsertItem;
}

/**
 * A chunk is sent once its records' JSON reaches this many characters, even short of chunkSize records: a UTF-16 unit
 * is at most 3 bytes of UTF-8, so a chunk stays under records' body limit (records refuses a chunk over it whole), and
 * the chunks an upload holds at once (about four) stay within a bounded share of memory whatever its records' sizes.
 */
export const CHUNK_MAX_CHARACTERS = Math.floor(BULK_UPSERT_MAX_BYTES / 4);

/**
 * Chunks of one upload written at once, when no two of them could touch the same record (see chunkKeys). Node and
 * PostgreSQL then work at the same time instead of taking turns; how the throughput changes with one to four chunks
 * at once is measured in bench/RESULTS.md ("Chunks in flight").
 */
export const MAX_CHUNKS_IN_FLIGHT = 3;

/**
 * The source ids of a chunk whose every record has one, or undefined. Such chunks with no source id in common touch
 * disjoint sets of records, so writing them at once ends as writing them one after the other would. A record without
 * a source id is deduplicated by its content against any live record, so its chunk waits for the others.
 */
function chunkKeys(chunk: Pending[]): Set<string> | undefined {
  const keys = new Set<string>();
  for (const p of chunk) {
    if (p.record.source_id == null) return undefined;
    keys.add(p.record.source_id);
  }
  return keys;
}

function overlap(a: Set<string> | undefined, b: Set<string> | undefined): boolean {
  if (!a || !b) return true;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const k of small) if (large.has(k)) return true;
  return false;
}

interface Flight {
  keys: Set<string> | undefined;
  done: Promise<void>;
}

export interface ChunkSchedulerOptions {
  /** Records per chunk at most; asked again for every chunk when a function. */
  chunkSize: number | (() => number);
  /** Characters of record JSON per chunk at most (default CHUNK_MAX_CHARACTERS); a single larger record is its own chunk. */
  maxCharacters?: number;
  /** Writes one chunk; a rejection is a failure of the whole upload. */
  write: (chunk: Pending[]) => Promise<void>;
}

/**
 * Gathers one upload's records into chunks (bounded by count and by characters of JSON) and writes them: up to
 * MAX_CHUNKS_IN_FLIGHT at once when they share no record (chunkKeys), otherwise one after the other in order. `add`
 * resolves only once the chunk it completed has been started, so the reader goes no further and memory holds about
 * four chunks whatever the size of the upload.
 */
export class ChunkScheduler {
  private chunk: Pending[] = [];
  private characters = 0;
  private readonly flights = new Set<Flight>();

  constructor(private readonly opts: ChunkSchedulerOptions) {}

  /** Adds a record to the chunk being gathered, sending that chunk when the record would overflow it or fills it. */
  async add(item: Pending): Promise<void> {
    const size = JSON.stringify(item.record).length;
    if (this.chunk.length > 0 && this.characters + size > (this.opts.maxCharacters ?? CHUNK_MAX_CHARACTERS)) {
      await this.sendChunk();
    }
    this.chunk.push(item);
    this.characters += size;
    const limit = typeof this.opts.chunkSize === 'function' ? this.opts.chunkSize() : this.opts.chunkSize;
    if (this.chunk.length >= limit) await this.sendChunk();
  }

  /** Sends the last chunk and resolves once every chunk is written; rejects when a write failed. */
  async finish(): Promise<void> {
    if (this.chunk.length > 0) await this.sendChunk();
    await Promise.all([...this.flights].map((f) => f.done));
  }

  /** Resolves once every chunk sent has ended, written or not: what an abandoned upload waits for before it is marked failed. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.flights].map((f) => f.done));
  }

  private async sendChunk(): Promise<void> {
    const chunk = this.chunk;
    this.chunk = [];
    this.characters = 0;
    await this.send(chunk);
  }

  private async send(chunk: Pending[]): Promise<void> {
    const keys = chunkKeys(chunk);
    for (;;) {
      const blocking = [...this.flights].filter((f) => overlap(f.keys, keys));
      if (blocking.length === 0 && this.flights.size < MAX_CHUNKS_IN_FLIGHT) break;
      // A failed write rejects here, which ends the upload.
      await Promise.race((blocking.length > 0 ? blocking : [...this.flights]).map((f) => f.done));
    }
    const flight: Flight = { keys, done: this.opts.write(chunk) };
    this.flights.add(flight);
    // Awaited when it blocks a later chunk or at the end; until then a failure must not count as unhandled.
    flight.done.then(
      () => this.flights.delete(flight),
      () => undefined,
    );
  }
}
