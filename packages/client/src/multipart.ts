import type { BodySource } from './http.js';
import { xhrConstructor, type ProgressListener } from './xhr.js';

/** A file's content: a Blob (a browser's File, Node's `fs.openAsBlob`), bytes, or text. */
export type FileContent = Blob | Uint8Array | ArrayBuffer | string;

/** Largest piece of a body handed to fetch at once, so progress moves in steps of at most this many bytes. */
const PIECE = 64 * 1024;

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  jsonl: 'application/x-ndjson',
  xml: 'application/xml',
  pdf: 'application/pdf',
};

export interface MultipartOptions {
  /** The file's name as the form sends it (Trove records it as the records' source_name). */
  filename: string;
  /** The file's media type; from the Blob, else from the file name's extension. */
  contentType?: string;
  /** Form fields, sent before the file (Trove reads options sent after a large file too late for it). */
  fields?: Record<string, string | undefined>;
  onProgress?: ProgressListener;
  /** Whether fetch can send a ReadableStream body here (Node 20+, Deno, Bun; not browsers over HTTP/1.1). */
  streaming: boolean;
}

/**
 * A multipart/form-data body holding the fields and the file in the part named `file`, made afresh for each attempt.
 * Where fetch can stream a body (Node), the form is written here and its bytes are counted as fetch reads them, with
 * a Content-Length, so `onProgress` follows the upload; in a browser, the browser's FormData is sent, through
 * XMLHttpRequest when progress is asked for (its upload events are the browser's only measure of bytes sent).
 */
export function multipartBody(content: FileContent, opts: MultipartOptions): BodySource {
  const blob = asBlob(content, opts.contentType ?? typeOf(content, opts.filename));
  const fields = Object.entries(opts.fields ?? {}).filter((f): f is [string, string] => f[1] !== undefined);
  if (!opts.streaming) {
    const xhr = opts.onProgress && xhrConstructor() ? opts.onProgress : undefined;
    return {
      replayable: true,
      xhrProgress: xhr,
      make: () => {
        const form = new FormData();
        for (const [name, value] of fields) form.append(name, value);
        form.append('file', blob, opts.filename);
        return { body: form, headers: {} };
      },
    };
  }
  const boundary = `----TroveFormBoundary${randomHex(16)}`;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(opts.filename)}"\r\nContent-Type: ${blob.type}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const total = head.byteLength + blob.size + tail.byteLength;
  return {
    replayable: true,
    make: () => ({
      body: countedStream([head, blob, tail], total, opts.onProgress),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(total) },
    }),
  };
}

/** The parts as one stream, in pieces of at most PIECE bytes, telling `onProgress` as each piece is read. */
function countedStream(parts: (Uint8Array | Blob)[], total: number, onProgress: ProgressListener | undefined): ReadableStream<Uint8Array> {
  let loaded = 0;
  async function* pieces(): AsyncGenerator<Uint8Array> {
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        yield* split(part);
        continue;
      }
      const reader = part.stream().getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield* split(value);
      }
    }
  }
  const source = pieces();
  onProgress?.({ loaded: 0, total });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.next();
      if (done) return controller.close();
      controller.enqueue(value);
      loaded += value.byteLength;
      onProgress?.({ loaded, total });
    },
    async cancel() {
      await source.return(undefined);
    },
  }, { highWaterMark: 0 });
}

function* split(bytes: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += PIECE) yield bytes.subarray(at, Math.min(at + PIECE, bytes.byteLength));
}

function asBlob(content: FileContent, type: string): Blob {
  if (content instanceof Blob) return content.type === type ? content : new Blob([content], { type });
  // A view over a SharedArrayBuffer is not a BlobPart to TypeScript; Blob copies the bytes either way.
  return new Blob([content as BlobPart], { type });
}

function typeOf(content: FileContent, filename: string): string {
  if (content instanceof Blob && content.type) return content.type;
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (ext && TYPES[ext]) ?? 'application/octet-stream';
}

/** A name or file name inside a quoted Content-Disposition parameter, escaped as browsers do (WHATWG HTML's form encoding). */
function quoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The file name a Blob carries when it is a File. */
export function nameOf(content: FileContent): string | undefined {
  const name = (content as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}
