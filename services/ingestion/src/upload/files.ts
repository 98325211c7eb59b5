import { createReadStream, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { INGEST_FILE, INGEST_PDF, PORTAL_UPLOAD, UPLOAD_FILE, UPLOAD_PDF, fileUploadOptions } from '@trove/contracts';
import { HttpError, guardBody, handle, identityOf, parseInput, requirePortalUser, requireScope, validationError, type Router } from '@trove/platform';
import { answer, answerAccepted, type Request, type Response } from '../http';
import type { AsyncUploads } from '../ingest/async-uploads';
import { submittedItems, UploadAborted, type Ingestor, type SubmittedItem, type UploadProgress, type UploadResult, type UploadTarget } from '../ingest/ingestor';
import { storableCopy } from '../ingest/storable';
import { detectFormat, parserFor } from '../parsers';
import { UnparseableFileError, type FileFormat } from '../parsers/types';
import { fileTooLarge, receiveFile, spoolToTempFile, LOOKAHEAD_BYTES, type IncomingFile, type Spool } from './multipart';
import { prefersAsync } from './prefer';
import { CURRENT, uploadPlace, type UploadPlace, type Vocabulary } from './vocabulary';

/** Parse options, from the form (fields) or the query string; a form field wins. */
type FileOptions = z.output<typeof fileUploadOptions>;

/** Form fields and the rest of the multipart envelope fit in this much beside the file itself. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const NAMES: Record<FileFormat, string> = { csv: 'CSV', json: 'JSON', ndjson: 'NDJSON', xml: 'XML', pdf: 'PDF' };

export interface FileKind {
  path: 'upload' | 'pdf';
  formats: FileFormat[];
  expected: string;
}

export const RECORD_FILES: FileKind = { path: 'upload', formats: ['csv', 'json', 'ndjson', 'xml'], expected: 'CSV, JSON, NDJSON or XML' };
export const PDF_FILES: FileKind = { path: 'pdf', formats: ['pdf'], expected: 'PDF' };
/** A blue-green replace reads any file the two upload routes read. */
export const ANY_FILES: FileKind = { path: 'upload', formats: ['csv', 'json', 'ndjson', 'xml', 'pdf'], expected: 'CSV, JSON, NDJSON, XML or PDF' };

function fileProblem(msg: string, input: unknown, ctx: Record<string, unknown> = {}): HttpError {
  return validationError(['body', 'file'], msg, 'value_error', input, ctx);
}

function checkFormat(file: Pick<IncomingFile, 'fileName' | 'mimeType' | 'head'>, kind: FileKind, vocabulary: Vocabulary): FileFormat {
  const format = detectFormat(file.fileName, file.mimeType, file.head);
  if (!format) {
    throw fileProblem(`Unrecognised file: expected ${kind.expected}`, file.fileName, { expected: kind.expected });
  }
  if (!kind.formats.includes(format)) {
    const other = kind === PDF_FILES ? RECORD_FILES : PDF_FILES;
    throw fileProblem(
      `The file is ${NAMES[format]}; this endpoint reads ${kind.expected} (send ${NAMES[format]} files to ${vocabulary.root}/${other.path})`,
      file.fileName,
      { format, expected: kind.expected },
    );
  }
  return format;
}

/** The parse options among a form's fields (the declared form's fields but the file). */
function optionsIn(fields: Record<string, unknown>): FileOptions {
  return parseInput(fileUploadOptions, { name_column: fields.name_column, record_tag: fields.record_tag }, 'body');
}

/** File names label records (source_name, at most 200 characters); what PostgreSQL cannot store is replaced. */
function sourceNameOf(fileName: string): string | null {
  const name = (storableCopy(fileName) as string).trim().slice(0, 200);
  return name === '' ? null : name;
}

export interface FileUploadOptions {
  vocabulary?: Vocabulary;
  /** Where the records go (from the path, or a replace's query), and their source_name when not the file's name. */
  target: UploadPlace & { source_name?: string };
  /** The parse options in the query, parsed by the endpoint's declaration. */
  options: FileOptions;
}

/** The upload of a file received from `req`, begun at `startedAt`: where its records go and how they are labelled. */
function fileTarget(req: Request, opts: FileUploadOptions, fileName: string, startedAt: number): UploadTarget {
  return {
    identity: identityOf(req),
    collection: opts.target.collection,
    recordType: opts.target.record_type,
    sourceType: 'file_upload',
    sourceName: opts.target.source_name ?? sourceNameOf(fileName),
    requestId: req.id,
    startedAt,
    origin: (opts.vocabulary ?? CURRENT).origin,
  };
}

/** The submitted items of a file's bytes, parsed as its format with its options and mapped in the vocabulary's terms. */
function fileItems(content: Readable, format: FileFormat, options: FileOptions, fileName: string, vocabulary: Vocabulary): AsyncIterable<SubmittedItem> {
  return submittedItems(parserFor(format)(content, { nameColumn: options.name_column, recordTag: options.record_tag, fileName }), {
    nameColumn: options.name_column,
    ...vocabulary.mapping,
  });
}

/**
 * Receives a file upload and ingests its records as the file arrives, answering once they are written: the file is
 * parsed while it streams in (or, when the request's length does not show it fits, once it has arrived whole in a
 * temporary file: multipart.ts).
 */
export async function ingestFile(
  ingestor: Ingestor,
  maxBytes: number,
  kind: FileKind,
  req: Request,
  res: Response,
  opts: FileUploadOptions,
): Promise<UploadResult> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  const fromQuery = { name_column: opts.options.name_column, record_tag: opts.options.record_tag };
  let used: FileOptions = {};
  let uploadId: string | undefined;

  const received = await receiveFile(req, res, {
    maxBytes,
    handle: async (file) => {
      used = { ...fromQuery, ...stripUndefined(optionsIn(file.fields)) };
      const format = checkFormat(file, kind, vocabulary);
      const options = used;
      try {
        const result = await ingestor.ingest(
          fileTarget(req, opts, file.fileName, startedAt),
          fileItems(file.content, format, options, file.fileName, vocabulary),
          file.hash,
          { bytesRead: file.bytesRead, ...(file.size !== null && { bytesTotal: file.size }) },
        );
        uploadId = result.upload_id;
        return result;
      } catch (err) {
        if (!(err instanceof UploadAborted)) throw err;
        // A problem found late (a JSON syntax error near the end, the size limit crossed) comes after earlier chunks
        // were written; the answer says so, and the upload entry keeps their counts.
        const kept = err.stored > 0 ? ` (${err.stored} records read before the problem are stored; upload ${err.uploadId} is marked failed)` : '';
        if (err.cause instanceof UnparseableFileError) throw fileProblem(`${err.cause.message}${kept}`, file.fileName, { format });
        if (err.cause instanceof HttpError && typeof err.cause.detail === 'string' && kept) {
          throw new HttpError(err.cause.status, err.cause.code, `${err.cause.detail}${kept}`, err.cause.headers);
        }
        throw err.cause;
      }
    },
  });
  if (!received) throw missingFile();

  // Options sent after a file larger than the look-ahead arrive once the file has been read with the others.
  const final = { ...fromQuery, ...stripUndefined(optionsIn(received.fields)) };
  const effective = (o: FileOptions) => ({ name_column: o.name_column ?? 'name', record_tag: o.record_tag });
  for (const key of ['name_column', 'record_tag'] as const) {
    if (effective(final)[key] !== effective(used)[key]) {
      throw validationError(
        ['body', key],
        `${key} came after a file larger than ${LOOKAHEAD_BYTES / (1024 * 1024)} MB, so the file was read without it; send ${key} before the file in the form, or as a query parameter (upload ${uploadId} holds what was read)`,
        'value_error',
        final[key] ?? null,
      );
    }
  }
  return received.result;
}

const missingFile = () => validationError(['body', 'file'], 'Field required', 'missing', null);

/**
 * A file received whole into a temporary file before any of its records is read (an upload answered asynchronously, a
 * replace): its format, the options of the whole form, its size and hash, and its items read afresh from its bytes as
 * often as asked.
 */
export interface SpooledFile {
  fileName: string;
  format: FileFormat;
  options: FileOptions;
  target: UploadTarget;
  hash: string;
  /** Its size, and the bytes the latest reading of it has read. */
  progress: UploadProgress;
  /** The file's submitted items, read from its first byte. */
  items(): AsyncIterable<SubmittedItem>;
  /** Deletes the temporary file. */
  remove(): Promise<void>;
}

/**
 * Receives a file upload whole, into a temporary file (counted and hashed on the way, refused at the size limit), with
 * every field of its form, before anything of it is parsed: its format is told from its first bytes (422 when it is
 * not one the route reads). Reading its records is up to the caller, who removes the file.
 */
export async function receiveSpooledFile(maxBytes: number, kind: FileKind, req: Request, res: Response, opts: FileUploadOptions): Promise<SpooledFile> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  let spool: Spool | undefined;
  try {
    const received = await receiveFile(req, res, {
      maxBytes,
      handle: async (file) => {
        spool = await spoolToTempFile(file.content);
        return { fileName: file.fileName, mimeType: file.mimeType, head: file.head, hash: await file.hash() };
      },
    });
    if (!received || !spool) throw missingFile();
    const { path, size, remove } = spool;
    const file = received.result;
    const options = { ...opts.options, ...stripUndefined(optionsIn(received.fields)) };
    const format = checkFormat(file, kind, vocabulary);
    let reading: ReadStream | undefined;
    return {
      fileName: file.fileName,
      format,
      options,
      target: fileTarget(req, opts, file.fileName, startedAt),
      hash: file.hash,
      progress: { bytesTotal: size, bytesRead: () => reading?.bytesRead ?? 0 },
      items: () => fileItems((reading = createReadStream(path)), format, options, file.fileName, vocabulary),
      remove,
    };
  } catch (err) {
    await spool?.remove();
    throw err;
  }
}

/** A received file found unparseable while its records are read, as the 422 naming why; any other error as it is. */
export function asFileProblem(err: unknown, file: Pick<SpooledFile, 'fileName' | 'format'>): unknown {
  return err instanceof UnparseableFileError ? fileProblem(err.message, file.fileName, { format: file.format }) : err;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Refuses a declared Content-Length over the file limit (and the form around the file) before the body is read, and a
 * compressed form (415): forms are sent uncompressed by browsers and form tools, and a file's format and hash are
 * those of its own bytes. See guardBody.
 */
export function refuseOversizedFile(maxBytes: number): RequestHandler {
  return guardBody({ maxBytes: () => maxBytes + FORM_OVERHEAD_BYTES, tooLarge: () => fileTooLarge(maxBytes), encodings: ['identity'] });
}

/** The declarations of the file uploads, in either vocabulary (a replace is read by its own route, replace/routes.ts). */
type FileEndpoint = typeof UPLOAD_FILE | typeof UPLOAD_PDF | typeof PORTAL_UPLOAD | typeof INGEST_FILE | typeof INGEST_PDF;

/**
 * The handler of a file upload declared by `e`: the path and the query are parsed by the declaration, then the form.
 * As the request prefers (upload/prefer.ts): with `Prefer: respond-async`, the file is received whole into a temporary
 * file, the upload registered and answered 202 (the vocabulary's `accepted`), and its records written after
 * from that file; otherwise the form is parsed as it arrives and the answer is `view` of the upload result (the result
 * itself unless said) at the declared status.
 */
export function fileUpload(
  uploads: { ingestor: Ingestor; later: AsyncUploads; maxBytes: number },
  e: FileEndpoint,
  kind: FileKind,
  vocabulary: Vocabulary,
  view: (result: UploadResult) => unknown = (result) => result,
): RequestHandler {
  const { ingestor, later, maxBytes } = uploads;
  return async (req, res) => {
    const target = uploadPlace(parseInput(e.params, req.params, 'path'));
    const options = parseInput(e.query, req.query, 'query');
    if (prefersAsync(req)) {
      const uploadId = await later.accept(identityOf(req).tenantId, async () => {
        const file = await receiveSpooledFile(maxBytes, kind, req, res, { vocabulary, target, options });
        return { target: file.target, progress: file.progress, job: { items: () => file.items(), fileHash: () => file.hash, cleanup: () => file.remove() } };
      });
      return answerAccepted(res, vocabulary.accepted(uploadId));
    }
    answer(res, e, await view(await ingestFile(ingestor, maxBytes, kind, req, res, { vocabulary, target, options })));
  };
}

/**
 * File uploads: the file is parsed while it arrives and never stored; records are written as it is read. A declared
 * Content-Length over the limit is refused before the body is read; a body that crosses the limit while streaming
 * stops there (records already written stay, and the upload is marked failed). Asked to answer asynchronously, the
 * file is kept in a temporary file until its records are written.
 */
export function fileRoutes(router: Router, uploads: { ingestor: Ingestor; later: AsyncUploads; maxBytes: number }): void {
  const refuse = refuseOversizedFile(uploads.maxBytes);
  handle(router, UPLOAD_FILE, requireScope('upload'), refuse, fileUpload(uploads, UPLOAD_FILE, RECORD_FILES, CURRENT));
  // The portal's upload (a person signed in) is the same upload, limits and answers included.
  handle(router, PORTAL_UPLOAD, requirePortalUser(), refuse, fileUpload(uploads, PORTAL_UPLOAD, RECORD_FILES, CURRENT));
  handle(router, UPLOAD_PDF, requireScope('upload'), refuse, fileUpload(uploads, UPLOAD_PDF, PDF_FILES, CURRENT));
}
