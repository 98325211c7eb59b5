import type { BodySource } from './http.js';

/** Records to stream: any iterable or async iterable of JSON values (an array, a generator, a database cursor). */
export type RecordSource<T = unknown> = Iterable<T> | AsyncIterable<T>;

/** Lines gathered into one piece of a body before it is handed to fetch. */
const PIECE_BYTES = 64 * 1024;

/**
 * Splits a source of records into NDJSON requests of at most `perRequest` records each. Each request's body is read
 * from the source while it is sent (where fetch can stream a body), and its lines are kept until it is answered, so
 * a request refused before it was stored (429 when the stream buffer is full, 503 with Retry-After) is sent again
 * whole. Returns undefined once the source is spent.
 */
export class NdjsonRequests<T> {
  private readonly iterator: Iterator<T> | AsyncIterator<T>;
  private readonly sync: boolean;
  private spent = false;

  constructor(
    source: RecordSource<T>,
    private readonly perRequest: number,
    private readonly streaming: boolean,
  ) {
    this.sync = !(Symbol.asyncIterator in source);
    this.iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  }

  /** The next request's body, or undefined when no record is left. */
  async next(): Promise<BodySource | undefined> {
    if (this.spent) return undefined;
    const segment = new Segment(this.iterator, this.sync, this.perRequest, () => (this.spent = true));
    // A request is only made for at least one record: an empty body would be an upload of nothing.
    if (!(await segment.pullLine())) return undefined;
    if (!this.streaming) await segment.fill();
    return {
      replayable: true,
      make: () => {
        const headers = { 'content-type': 'application/x-ndjson' };
        if (!this.streaming) return { body: new Blob(segment.lines, { type: 'application/x-ndjson' }), headers };
        return { body: segment.stream(), headers };
      },
    };
  }

  /** Stops reading the source (its `return()`, so a generator's finally blocks run). */
  async close(): Promise<void> {
    if (!this.spent) {
      this.spent = true;
      await this.iterator.return?.();
    }
  }
}

/** One request's records: the lines read so far, and more read from the source on demand up to its quota. */
class Segment<T> {
  readonly lines: string[] = [];
  private complete = false;

  constructor(
    private readonly iterator: Iterator<T> | AsyncIterator<T>,
    private readonly sync: boolean,
    private readonly quota: number,
    private readonly onSpent: () => void,
  ) {}

  /** Reads one more record into the segment; false when the quota is reached or the source is spent. */
  async pullLine(): Promise<boolean> {
    if (this.complete) return false;
    if (this.lines.length >= this.quota) {
      this.complete = true;
      return false;
    }
    const next = await this.iterator.next();
    if (next.done) {
      this.complete = true;
      this.onSpent();
      return false;
    }
    this.lines.push(`${JSON.stringify(next.value)}\n`);
    return true;
  }

  async fill(): Promise<void> {
    while (await this.pullLine());
  }

  /**
   * The segment's body: the lines read so far, then the rest read from the source as fetch asks for them. Lines of a
   * synchronous source are gathered into pieces of up to PIECE_BYTES; a line of an asynchronous one is sent as soon as
   * it is read, so a slow source's records go out as they come.
   */
  stream(): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    let sent = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          let piece = '';
          while (sent < this.lines.length && piece.length < PIECE_BYTES) piece += this.lines[sent++];
          while (piece.length < PIECE_BYTES && (piece === '' || this.sync)) {
            if (!(await this.pullLine())) break;
            piece += this.lines[sent++];
          }
          if (piece !== '') controller.enqueue(encoder.encode(piece));
          if (sent >= this.lines.length && this.complete) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
  }
}
