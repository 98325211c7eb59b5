import { ERRORS, identityOf, requireScope } from '@trove/platform';
import { ByteMeter, formatBytes } from '../byte-meter';
import { parserFor } from '../domain/parsers';
import { mapRecord } from '../domain/record-mapping';
import { refuseLargerThan, type Router } from '../http';
import type { StreamBuffers, StreamEntry } from '../stream-buffers';
import { CURRENT, type Vocabulary } from './vocabulary';

const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson'];

export interface StreamRouteOptions {
  /** A stream request's body is bounded like a file upload (UPLOAD_MAX_BYTES). */
  maxBytes: number;
  /** The buffer's capacity (STREAM_BUFFER_LIMIT), also the most records one request can carry. */
  bufferLimit: number;
}

function bodyTooLarge(maxBytes: number) {
  return ERRORS.payloadTooLarge(`The stream request exceeds the limit of ${maxBytes} bytes (${formatBytes(maxBytes)})`);
}

function bufferFull(detail: string) {
  return ERRORS.tooManyRequests(detail, { 'Retry-After': '1' });
}

/**
 * NDJSON streaming: the request is read line by line; its records join the target's buffer all together or, when
 * they would take it over its capacity, not at all (429). Lines that are not a JSON object or not a valid record are
 * counted in parse_errors and written as dead letters of the flush that takes them. A request that fills a chunk
 * flushes the buffer before it answers (`flushed`, and X-Upload-Id names the flush's upload entry); otherwise the
 * timer does.
 */
export function streamRoutes(router: Router, streams: StreamBuffers, opts: StreamRouteOptions, vocabulary: Vocabulary = CURRENT): void {
  const refuse = refuseLargerThan(() => opts.maxBytes, bodyTooLarge);
  router.post(vocabulary.route('stream'), requireScope('upload'), refuse, async (req, res) => {
    const params = vocabulary.target(req.params);
    if (!req.is(NDJSON_TYPES)) {
      throw ERRORS.unsupportedMediaType(`Content-Type must be application/x-ndjson, one JSON object per line`);
    }
    const target = { identity: identityOf(req), collection: params.collection, recordType: params.record_type };

    const meter = new ByteMeter(opts.maxBytes, () => bodyTooLarge(opts.maxBytes));
    req.pipe(meter);
    req.on('error', (err) => meter.destroy(err));
    const entries: StreamEntry[] = [];
    let accepted = 0;
    let parseErrors = 0;
    for await (const item of parserFor('ndjson')(meter, {})) {
      const entry: StreamEntry = item.ok
        ? { raw: item.data, mapped: mapRecord(item.data, vocabulary.mapping) }
        : { raw: item.raw, mapped: { ok: false, error: item.error } };
      entries.push(entry);
      if (entry.mapped.ok) accepted++;
      else parseErrors++;
      if (accepted > opts.bufferLimit) {
        res.setHeader('Connection', 'close');
        throw bufferFull(`A stream request may carry at most ${opts.bufferLimit} records (the buffer's capacity); send them in smaller requests`);
      }
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
    res.json({ accepted, parse_errors: parseErrors, buffer_size: streams.size(target), flushed: flush?.written ?? false });
  });
}
