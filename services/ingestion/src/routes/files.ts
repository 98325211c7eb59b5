import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { HttpError, identityOf, parseInput, requirePortalUser, requireScope, validationError, type Router } from '@trove/platform';
import { detectFormat, parserFor } from '../domain/parsers';
import { UnparseableFileError, type FileFormat } from '../domain/parsers/types';
import { storableCopy } from '../domain/storable';
import { guardBody, type Request, type Response } from '../http';
import { submittedItems, UploadAborted, type Ingestor, type SubmittedItem, type UploadResult, type UploadTarget } from '../ingestor';
import { fileTooLarge, receiveFile, LOOKAHEAD_BYTES, type IncomingFile } from '../multipart';
import { CURRENT, type Vocabulary } from './vocabulary';

/** Parse options, from the form (fields) or the query string; a form field wins. */
const fileOptions = z.object({
  name_column: z.string().trim().min(1).max(200).optional(),
  record_tag: z.string().trim().min(1).max(200).optional(),
});
type FileOptions = z.output<typeof fileOptions>;

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

function optionsIn(values: Record<string, unknown>, source: 'body' | 'query'): FileOptions {
  return parseInput(fileOptions, { name_column: values.name_column, record_tag: values.record_tag }, source);
}

/** File names label records (source_name, at most 200 characters); what PostgreSQL cannot store is replaced. */
function sourceNameOf(fileName: string): string | null {
  const name = (storableCopy(fileName) as string).trim().slice(0, 200);
  return name === '' ? null : name;
}

export interface FileUploadOptions {
  vocabulary?: Vocabulary;
  /** Where the records go when the path does not say (a replace names the record type in its query). */
  target?: { collection: string; record_type: string; source_name?: string };
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
  opts: FileUploadOptions = {},
): Promise<UploadResult> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  const params = opts.target ?? vocabulary.target(req.params);
  const fromQuery = optionsIn(req.query as Record<string, unknown>, 'query');
  let used: FileOptions = {};
  let uploadId: string | undefined;

  const received = await receiveFile(req, res, {
    maxBytes,
    handle: async (file) => {
      used = { ...fromQuery, ...stripUndefined(optionsIn(file.fields, 'body')) };
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
          sourceName: opts.target?.source_name ?? sourceNameOf(file.fileName),
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
  const final = { ...fromQuery, ...stripUndefined(optionsIn(received.fields, 'body')) };
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

/**
 * File uploads: the file is parsed while it arrives and never stored; records are written as it is read. A declared
 * Content-Length over the limit is refused before the body is read; a body that crosses the limit while streaming
 * stops there (records already written stay, and the upload is marked failed).
 */
export function fileRoutes(router: Router, ingestor: Ingestor, maxBytes: number): void {
  const refuse = refuseOversizedFile(maxBytes);
  const uploadRecords: RequestHandler = async (req, res) => {
    res.status(201).json(await ingestFile(ingestor, maxBytes, RECORD_FILES, req, res));
  };
  router.post('/upload/:collection/:record_type/upload', requireScope('upload'), refuse, uploadRecords);
  // The portal's upload (a person signed in) is the same upload, limits and answers included.
  router.post('/portal/upload/:collection/:record_type/upload', requirePortalUser(), refuse, uploadRecords);
  router.post('/upload/:collection/:record_type/pdf', requireScope('upload'), refuse, async (req, res) => {
    res.status(201).json(await ingestFile(ingestor, maxBytes, PDF_FILES, req, res));
  });
}
