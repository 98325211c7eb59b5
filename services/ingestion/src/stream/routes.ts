import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { RequestHandler } from 'express';
import { type INGEST_STREAM, NDJSON_MEDIA_TYPES, UPLOAD_STREAM } from '@trove/contracts';
import { ByteMeter, ERRORS, bodyEncodingOf, decodedBody, guardBody, handle, identityOf, parseInput, requireScope, validationError, type Router } from '@trove/platform';
import { answer, answerAccepted, formatBytes, type Request } from '../http';
import type { AsyncUpload, AsyncUploads } from '../ingest/async-uploads';
import { submittedItems } from '../ingest/ingestor';
import { mapRecord } from '../ingest/record-mapping';
import { storableCopy } from '../ingest/storable';
import { parserFor, UnparseableFileError, type ParsedItem } from '../parsers';
import { checkText, SNIFF_BYTES } from '../parsers/decode';
import { spoolToTempFile } from '../upload/multipart';
import { prefersAsync } from '../upload/prefer';
import { CURRENT, uploadPlace, type UploadPlace, type Vocabulary } from '../upload/vocabulary';
import type { StreamBuffers, StreamEntry } from './stream-buffers';

export interface StreamRouteOptions {
  /** A stream request's body is bounded like a file upload (UPLOAD_MAX_BYTES), once inflated when compressed. */
  maxBytes: number;
  /** The buffer's capacity (STREAM_BUFFER_LIMIT), also the most records one request can carry. */
  bufferLimit: number;
}

function bodyTooLarge(maxBytes: number) {
  return ERRORS.payloadTooLarge(`The stream request exceeds the limit of ${maxBytes} bytes (${formatBytes(maxBytes)})`);
}

/** A body that is not text at all (a NUL byte among its first bytes, without a UTF-16 byte order mark). */
function notText(): Error {
  return validationError(['body'], 'The body is binary, not NDJSON: send UTF-8 text, one JSON object per line', 'value_error', null);
}

/**
 * The entry for one line. A rejected line keeps a copy of what it held that its dead letter and the flush's hash can
 * always serialise (a line nested 100,000 levels deep is valid JSON, and JSON.stringify overflows the stack on it).
 */
function entryOf(item: ParsedItem, vocabulary: Vocabulary): StreamEntry {
  if (!item.ok) return { raw: item.raw, mapped: { ok: false, error: item.error } };
  const mapped = mapRecord(item.data, vocabulary.mapping);
  return { raw: mapped.ok ? item.data : storableCopy(item.data), mapped };
}

function bufferFull(detail: string) {
  return ERRORS.tooManyRequests(detail, { 'Retry-After': '1' }, 'stream_buffer');
}

/**
 * NDJSON streaming: the request is read line by line; its records join the target's buffer all together or, when
 * they would take it over its capacity, not at all (429). Each line is checked as it is read by the rules records
 * applies (mapRecord); lines that are not a JSON object, not a valid record or longer than the parser's line limit are
 * counted in parse_errors and written as dead letters of the flush that takes them. A body that is binary answers 422
 * and adds nothing. A request that fills a chunk flushes the buffer before it answers (`flushed`, and X-Upload-Id
 * names the flush's upload entry); otherwise the timer does.
 */
export function streamRoutes(router: Router, streams: StreamBuffers, later: AsyncUploads, opts: StreamRouteOptions): void {
  // The older vocabulary's stream, answered as this one, is registered with the older routes (older/routes.ts).
  handle(router, UPLOAD_STREAM, requireScope('upload'), guardStream(opts), streamUpload(streams, later, opts, UPLOAD_STREAM, CURRENT));
}

/** The guard of a stream request's body: its encoding and declared length checked before it is read (see guardBody). */
export function guardStream(opts: StreamRouteOptions): RequestHandler {
  return guardBody({ maxBytes: () => opts.maxBytes, tooLarge: bodyTooLarge });
}

/** The first bytes of a file, up to `length`. */
async function headOf(path: string, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * A stream request asked to answer asynchronously (docs/behaviour/ingestion.md, "Asynchronous uploads"): an upload of
 * its own rather than a part of the buffer. Its body is received whole into a temporary file (inflated, counted
 * against the limit and hashed on the way) and refused as a synchronous one would be when it is binary (422); its
 * lines are then read from that file and written in chunks like an NDJSON file's, as many as the body holds.
 */
async function receiveStream(req: Request, opts: StreamRouteOptions, place: UploadPlace, vocabulary: Vocabulary): Promise<AsyncUpload> {
  const startedAt = performance.now();
  const body = decodedBody(req, bodyEncodingOf(req));
  const meter = new ByteMeter(opts.maxBytes, () => bodyTooLarge(opts.maxBytes));
  body.on('error', (err) => meter.destroy(err));
  let spool;
  try {
    spool = await spoolToTempFile(body.pipe(meter));
  } finally {
    if (body !== req) body.destroy();
  }
  const { path, size, remove } = spool;
  try {
    checkText(await headOf(path, SNIFF_BYTES), 'NDJSON');
  } catch (err) {
    await remove();
    throw err instanceof UnparseableFileError ? notText() : err;
  }
  const hash = meter.digest();
  let reading: ReturnType<typeof createReadStream> | undefined;
  return {
    target: {
      identity: identityOf(req),
      collection: place.collection,
      recordType: place.record_type,
      sourceType: 'api',
      sourceName: null,
      requestId: req.id,
      startedAt,
      origin: vocabulary.origin,
    },
    progress: { bytesTotal: size, bytesRead: () => reading?.bytesRead ?? 0 },
    job: {
      items: () => submittedItems(parserFor('ndjson')((reading = createReadStream(path)), {}), vocabulary.mapping),
      fileHash: () => hash,
      cleanup: remove,
    },
  };
}

/**
 * One stream request: its records, named in the vocabulary's terms, join the target's buffer. The path is parsed by
 * the declaration; the body is read line by line as it arrives. Asked to answer asynchronously, the request is an
 * upload of its own instead (receiveStream), answered 202.
 */
export function streamUpload(
  streams: StreamBuffers,
  later: AsyncUploads,
  opts: StreamRouteOptions,
  e: typeof UPLOAD_STREAM | typeof INGEST_STREAM,
  vocabulary: Vocabulary,
): RequestHandler {
  return async (req, res) => {
    const params = uploadPlace(parseInput(e.params, req.params, 'path'));
    if (!req.is([...NDJSON_MEDIA_TYPES])) {
      throw ERRORS.unsupportedMediaType(`Content-Type must be application/x-ndjson, one JSON object per line`);
    }
    if (prefersAsync(req)) {
      const uploadId = await later.accept(identityOf(req).tenantId, () => receiveStream(req, opts, params, vocabulary));
      return answerAccepted(res, vocabulary.accepted(uploadId));
    }
    const target = { identity: identityOf(req), collection: params.collection, recordType: params.record_type, origin: vocabulary.origin };

    // The limit counts inflated bytes, so a compressed body cannot grow past it.
    const body = decodedBody(req, bodyEncodingOf(req));
    const meter = new ByteMeter(opts.maxBytes, () => bodyTooLarge(opts.maxBytes));
    body.pipe(meter);
    body.on('error', (err) => meter.destroy(err));
    const entries: StreamEntry[] = [];
    let accepted = 0;
    let parseErrors = 0;
    try {
      for await (const item of parserFor('ndjson')(meter, {})) {
        const entry = entryOf(item, vocabulary);
        entries.push(entry);
        if (entry.mapped.ok) accepted++;
        else parseErrors++;
        if (accepted > opts.bufferLimit) {
          throw bufferFull(`A stream request may carry at most ${opts.bufferLimit} records (the buffer's capacity); send them in smaller requests`);
        }
      }
    } catch (err) {
      throw err instanceof UnparseableFileError ? notText() : err;
    } finally {
      // Given up early, the inflater lets go of the request, whose rest guardBody drains.
      if (body !== req) body.destroy();
    }

    const added = streams.add(target, entries);
    if (!added.added) {
      throw bufferFull(
        `The stream buffer for ${params.collection}/${params.record_type} holds ${added.size} of ${opts.bufferLimit} records; this request's ${accepted} were not added. Retry shortly.`,
      );
    }
    const flush = added.full ? await streams.flush(target) : undefined;
    // The body keeps the specified shape; the flush's upload entry (counts, dead letters) is named in a header.
    if (flush?.uploadId) res.setHeader('X-Upload-Id', flush.uploadId);
    answer(res, e, { accepted, parse_errors: parseErrors, buffer_size: streams.size(target), flushed: flush?.written ?? false });
  };
}
