import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { INGEST_FILE, INGEST_PDF, PORTAL_UPLOAD, UPLOAD_FILE, UPLOAD_PDF, fileUploadOptions } from '@trove/contracts';
import { HttpError, guardBody, handle, identityOf, parseInput, requirePortalUser, requireScope, validationError, type Router } from '@trove/platform';
import { answer, type Request, type Response } from '../http';
import { submittedItems, UploadAborted, type Ingestor, type SubmittedItem, type UploadResult, type UploadTarget } from '../ingest/ingestor';
import { storableCopy } from '../ingest/storable';
import { detectFormat, parserFor } from '../parsers';
import { UnparseableFileError, type FileFormat } from '../parsers/types';
import { fileTooLarge, receiveFile, LOOKAHEAD_BYTES, type IncomingFile } from './multipart';
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

function checkFormat(file: IncomingFile, kind: FileKind, vocabulary: Vocabulary): FileFormat {
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
  /** Runs the upload of the received file; without it, the file's records are ingested as they are read. */
  run?: (upload: ReceivedUpload) => Promise<UploadResult>;
}

/** A received file of a known format, ready to be read into records (more than once, from copies of its bytes). */
export interface ReceivedUpload {
  file: IncomingFile;
  format: FileFormat;
  options: FileOptions;
  target: UploadTarget;
  /** The submitted items of the file's bytes in `content` (the file's own stream, or a copy of it). */
  items(content: Readable): AsyncIterable<SubmittedItem>;
}

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
  const params = opts.target;
  const fromQuery = { name_column: opts.options.name_column, record_tag: opts.options.record_tag };
  let used: FileOptions = {};
  let uploadId: string | undefined;

  const received = await receiveFile(req, res, {
    maxBytes,
    handle: async (file) => {
      used = { ...fromQuery, ...stripUndefined(optionsIn(file.fields)) };
      const format = checkFormat(file, kind, vocabulary);
      const options = used;
      const upload: ReceivedUpload = {
        file,
        format,
        options,
        target: {
          identity: identityOf(req),
          collection: params.collection,
          recordType: params.record_type,
          sourceType: 'file_upload',
          sourceName: opts.target.source_name ?? sourceNameOf(file.fileName),
          requestId: req.id,
          startedAt,
          origin: vocabulary.origin,
        },
        items: (content) =>
          submittedItems(parserFor(format)(content, { nameColumn: options.name_column, recordTag: options.record_tag, fileName: file.fileName }), {
            nameColumn: options.name_column,
            ...vocabulary.mapping,
          }),
      };
      try {
        const result = await (opts.run ?? ((u: ReceivedUpload) => ingestor.ingest(u.target, u.items(file.content), file.hash)))(upload);
        uploadId = result.upload_id;
        return result;
      } catch (err) {
        // Found before anything was written (a run that reads the file once before writing it).
        if (err instanceof UnparseableFileError) throw fileProblem(err.message, file.fileName, { format });
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
  if (!received) throw validationError(['body', 'file'], 'Field required', 'missing', null);

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
 * The handler of a file upload declared by `e`: the path and the query are parsed by the declaration, then the form
 * as it arrives; the answer is `view` of the upload result (the result itself unless said) at the declared status.
 */
export function fileUpload(
  ingestor: Ingestor,
  maxBytes: number,
  e: FileEndpoint,
  kind: FileKind,
  vocabulary: Vocabulary,
  view: (result: UploadResult) => unknown = (result) => result,
): RequestHandler {
  return async (req, res) => {
    const target = uploadPlace(parseInput(e.params, req.params, 'path'));
    const options = parseInput(e.query, req.query, 'query');
    answer(res, e, await view(await ingestFile(ingestor, maxBytes, kind, req, res, { vocabulary, target, options })));
  };
}

/**
 * File uploads: the file is parsed while it arrives and never stored; records are written as it is read. A declared
 * Content-Length over the limit is refused before the body is read; a body that crosses the limit while streaming
 * stops there (records already written stay, and the upload is marked failed).
 */
export function fileRoutes(router: Router, ingestor: Ingestor, maxBytes: number): void {
  const refuse = refuseOversizedFile(maxBytes);
  handle(router, UPLOAD_FILE, requireScope('upload'), refuse, fileUpload(ingestor, maxBytes, UPLOAD_FILE, RECORD_FILES, CURRENT));
  // The portal's upload (a person signed in) is the same upload, limits and answers included.
  handle(router, PORTAL_UPLOAD, requirePortalUser(), refuse, fileUpload(ingestor, maxBytes, PORTAL_UPLOAD, RECORD_FILES, CURRENT));
  handle(router, UPLOAD_PDF, requireScope('upload'), refuse, fileUpload(ingestor, maxBytes, UPLOAD_PDF, PDF_FILES, CURRENT));
}
