import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { INGEST_BATCH, UPLOAD_BATCH, WEBHOOK_INGEST, WEBHOOK_UPLOAD } from '@trove/contracts';
import { ERRORS, guardBody, handle, identityOf, parseInput, requireScope, type Router } from '@trove/platform';
import { answer, parseJson, readRawBody, type Request, type Response } from '../http';
import type { Ingestor, SubmittedItem, UploadResult } from '../ingest/ingestor';
import { mapRecord } from '../ingest/record-mapping';
import type { UploadSourceType } from '../schema';
import { CURRENT, uploadPlace, type Vocabulary } from './vocabulary';

/** Room for 10,000 records with generous collection_data; beyond it (once inflated, when compressed) the body answers 413. */
export const BATCH_BODY_MAX_BYTES = 64 * 1024 * 1024;

function bodyTooLarge(max: number) {
  return ERRORS.payloadTooLarge(`Request body exceeds the limit of ${max} bytes`);
}

/**
 * A declared length over the limit (or an unknown Content-Encoding) is refused before the body is read (the body
 * parser would drain it first); see guardBody.
 */
export const refuseOversizedBatch: RequestHandler = guardBody({ maxBytes: () => BATCH_BODY_MAX_BYTES, tooLarge: bodyTooLarge });

function* submitted(records: unknown[], vocabulary: Vocabulary): Iterable<SubmittedItem> {
  for (let index = 0; index < records.length; index++) {
    yield { index, raw: records[index], mapped: mapRecord(records[index], vocabulary.mapping) };
  }
}

/** The declarations of the batch bodies: batch and webhook uploads, in either vocabulary. */
export type BatchEndpoint = typeof UPLOAD_BATCH | typeof WEBHOOK_UPLOAD | typeof INGEST_BATCH | typeof WEBHOOK_INGEST;

export interface BatchOptions {
  sourceType: UploadSourceType;
  /** Sees the exact bytes before they are parsed (the webhook signature). */
  verify?: (raw: Buffer) => void;
  vocabulary?: Vocabulary;
}

/**
 * Reads a batch body (batch and webhook uploads) from its raw bytes and ingests its records; file_hash is their
 * sha256. The path, the query and the body are parsed by the endpoint's declaration, in that order, the body only
 * once its bytes are read (and verified).
 */
export async function ingestBatch(ingestor: Ingestor, e: BatchEndpoint, req: Request, res: Response, opts: BatchOptions): Promise<UploadResult> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  const target = uploadPlace(parseInput(e.params, req.params, 'path'));
  const query = parseInput(e.query, req.query, 'query');
  const raw = await readRawBody(req, res, BATCH_BODY_MAX_BYTES);
  opts.verify?.(raw);
  const body = parseInput(e.body, parseJson(raw), 'body');
  return ingestor.ingest(
    {
      identity: identityOf(req),
      collection: target.collection,
      recordType: target.record_type,
      sourceType: opts.sourceType,
      sourceName: query.source_name ?? null,
      requestId: req.id,
      startedAt,
      origin: vocabulary.origin,
    },
    submitted(body.records, vocabulary),
    () => `sha256:${createHash('sha256').update(raw).digest('hex')}`,
  );
}

export function batchRoutes(router: Router, ingestor: Ingestor): void {
  handle(router, UPLOAD_BATCH, requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    answer(res, UPLOAD_BATCH, await ingestBatch(ingestor, UPLOAD_BATCH, req, res, { sourceType: 'api' }));
  });
}
