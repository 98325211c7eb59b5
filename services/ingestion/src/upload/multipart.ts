import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import multer from 'multer';
import { ByteMeter, ERRORS, validationError } from '@trove/platform';
import { formatBytes } from '../http';

/**
 * How much of a file is read before its records are: enough to tell its format, and for a small file all of it, so
 * form fields sent after the file (browsers and FormData send parts in the order they were added) still apply to it.
 */
export const LOOKAHEAD_BYTES = 1024 * 1024;

/** Form fields are short option values; these bounds keep a form from filling memory with fields or parts. */
const FIELD_LIMITS = { fields: 20, fieldSize: 16 * 1024, fieldNameSize: 100, parts: 22, files: 1 };

export interface IncomingFile {
  fileName: string;
  mimeType: string;
  /** The first bytes of the file (at least LOOKAHEAD_BYTES unless the file is smaller). */
  head: Buffer;
  /** The whole file from its first byte, read as it arrives; fails with 413 once the size limit is crossed. */
  content: Readable;
  /** `sha256:<hex>` of every byte of the file; reads whatever the parser left unread first. */
  hash(): Promise<string>;
  /** The file's size when all of it arrived before it was handed over (it fitted in the look-ahead, or was spooled). */
  size: number | null;
  /** Bytes of the file read so far (the look-ahead included), for the upload's progress. */
  bytesRead(): number;
  /**
   * The form fields received when reading the file begins: every field when the file fitted in the look-ahead, else
   * those sent before it (and any busboy had already read past it).
   */
  fields: Record<string, unknown>;
}

export function fileTooLarge(maxBytes: number) {
  return ERRORS.payloadTooLarge(`The file exceeds the upload limit of ${maxBytes} bytes (${formatBytes(maxBytes)})`);
}

/** Resolves once multer's busboy has read the whole form (every field after the file too), or the request is gone. */
function formRead(req: Request, busboy: Writable | undefined): Promise<void> {
  if (!busboy || busboy.writableFinished || busboy.destroyed || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => resolve();
    busboy.once('finish', done);
    busboy.once('close', done);
    busboy.once('error', done);
    req.once('close', done);
    req.once('error', done);
  });
}

interface Job<T> {
  handle(file: IncomingFile): Promise<T>;
  result?: T;
  /** An error thrown by `handle`, told apart from multer's own (a malformed form answers 422, ours keep their status). */
  handlerError?: unknown;
}

/**
 * Multer storage that stores nothing: the file's stream goes to the handler as it arrives, counted and hashed on
 * the way, and multer finishes only when the handler has read it all.
 */
class StreamingStorage<T> implements multer.StorageEngine {
  busboy?: Writable;

  constructor(
    private readonly job: Job<T>,
    private readonly maxBytes: number,
  ) {}

  _handleFile(req: Request, file: Express.Multer.File, cb: (error?: unknown, info?: Partial<Express.Multer.File>) => void): void {
    this.run(req, file).then(
      (result) => {
        this.job.result = result;
        cb(null, {});
      },
      (err) => {
        this.job.handlerError = err;
        cb(err);
      },
    );
  }

  _removeFile(_req: Request, _file: Express.Multer.File, cb: (error: Error | null) => void): void {
    cb(null);
  }

  private async run(req: Request, file: Express.Multer.File): Promise<T> {
    const source = file.stream as Readable & { truncated?: boolean };
    const meter = new ByteMeter(this.maxBytes, () => fileTooLarge(this.maxBytes));
    source.on('error', (err) => meter.destroy(err));
    // Past the limit (or once the handler gives up) the rest of the part is drained, so multer reaches its end.
    meter.on('error', () => {
      source.unpipe(meter);
      source.resume();
    });
    source.pipe(meter);
    try {
      if (Number(req.get('content-length')) <= this.maxBytes) return await this.handle(req, file, meter, () => meter.digest(), null);
      // The request's length does not show that the file fits (it is chunked, or within the form's margin of the
      // limit): the file goes to a temporary file first and is read only once all of it has come within the limit,
      // so an upload that turns out too large has stored nothing.
      const spool = await spoolToTempFile(meter);
      try {
        // busboy stops a file at multer's fileSize limit and marks it truncated.
        if (source.truncated) throw fileTooLarge(this.maxBytes);
        const digest = meter.digest();
        const spooled = createReadStream(spool.path);
        try {
          return await this.handle(req, file, spooled, () => digest, spool.size);
        } finally {
          spooled.destroy();
        }
      } finally {
        await spool.remove();
      }
    } finally {
      if (!meter.readableEnded) {
        source.unpipe(meter);
        source.resume();
        meter.destroy();
      }
    }
  }

  /**
   * Reads the look-ahead from `input` (the file's bytes), then hands the file to the job while the rest streams.
   * `known` is the file's size when all of it has arrived already.
   */
  private async handle(req: Request, file: Express.Multer.File, input: Readable, digest: () => string, known: number | null): Promise<T> {
    const source = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let read = 0;
    const chunks = {
      next: async () => {
        const next = await source.next();
        if (!next.done) read += next.value.length;
        return next;
      },
    };
    const parts: Buffer[] = [];
    let size = 0;
    let ended = false;
    while (size < LOOKAHEAD_BYTES) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      parts.push(next.value);
      size += next.value.length;
    }
    const head = Buffer.concat(parts);
    if (ended) await formRead(req, this.busboy);

    const content = Readable.from(
      (async function* () {
        if (head.length > 0) yield head;
        if (ended) return;
        for (;;) {
          const next = await chunks.next();
          if (next.done) return;
          yield next.value;
        }
      })(),
      { objectMode: false },
    );
    const hash = async () => {
      if (!ended) for (let next = await chunks.next(); !next.done; next = await chunks.next());
      ended = true;
      return digest();
    };
    try {
      return await this.job.handle({
        fileName: file.originalname,
        mimeType: file.mimetype,
        head,
        content,
        hash,
        size: ended ? head.length : known,
        bytesRead: () => read,
        fields: { ...(req.body as Record<string, unknown>) },
      });
    } finally {
      content.destroy();
    }
  }
}

/** A stream written whole to a temporary file, which `remove` deletes. */
export interface Spool {
  path: string;
  /** Its size in bytes. */
  size: number;
  remove(): Promise<void>;
}

/** Writes a stream to a new temporary file; fails (and leaves no file) when the stream fails. */
export async function spoolToTempFile(input: Readable): Promise<Spool> {
  const path = join(tmpdir(), `trove-upload-${randomUUID()}`);
  const remove = () => rm(path, { force: true });
  try {
    await pipeline(input, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return { path, size: (await stat(path)).size, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** Maps multer's and busboy's own errors (a malformed or over-limit form) onto the API's answers. */
function formError(err: unknown, maxBytes: number): unknown {
  if (err instanceof multer.MulterError) {
    switch (err.code) {
      case 'LIMIT_FILE_SIZE':
        return fileTooLarge(maxBytes);
      case 'LIMIT_UNEXPECTED_FILE':
      case 'LIMIT_FILE_COUNT':
        return validationError(['body', err.field ?? 'file'], 'Send exactly one file, in the field named file', 'value_error', err.field ?? null);
      default:
        return validationError(['body', err.field ?? ''].filter(Boolean), `Invalid multipart form: ${err.message}`, 'value_error', err.field ?? null);
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  // The client went away; nobody reads the answer, and it must not read as our fault.
  if (/^Request (aborted|closed)$/.test(message)) return ERRORS.badRequest(message);
  return validationError(['body'], `Malformed multipart body: ${message}`, 'value_error', null);
}

/**
 * Reads a multipart upload whose `file` part is handed to `handle` as a stream while it arrives; nothing is buffered
 * beyond the look-ahead. Answers undefined when the form holds no file (or the request is not multipart).
 */
export async function receiveFile<T>(
  req: Request,
  res: Response,
  opts: { maxBytes: number; handle(file: IncomingFile): Promise<T> },
): Promise<{ result: T; fields: Record<string, unknown> } | undefined> {
  const job: Job<T> = { handle: opts.handle };
  const storage = new StreamingStorage(job, opts.maxBytes);
  const options = {
    storage,
    limits: { ...FIELD_LIMITS, fileSize: opts.maxBytes },
    // multer feeds busboy through this hook; keeping busboy tells when the fields after the file have been read.
    streamHandler: (request: Request, busboy: Writable) => {
      storage.busboy = busboy;
      request.pipe(busboy);
    },
  } as multer.Options;
  const middleware = multer(options).single('file');
  await new Promise<void>((resolve, reject) => {
    middleware(req, res, (err?: unknown) => {
      if (!err) return resolve();
      reject(err === job.handlerError ? err : formError(err, opts.maxBytes));
    });
  });
  if (!req.file) return undefined;
  return { result: job.result as T, fields: { ...(req.body as Record<string, unknown>) } };
}
