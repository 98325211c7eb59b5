import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { INGEST_BATCH, UPLOAD_BATCH, WEBHOOK_INGEST, WEBHOOK_UPLOAD } from '@trove/contracts';
import { ERRORS, guardBody, handle, identityOf, parseInput, requireScope, type Router } from '@trove/platform';
import { answer, answerAccepted, parseJson, readRawBody, type Request, type Response } from '../http';
import type { AsyncUpload, AsyncUploads } from '../ingest/async-uploads';
import type { Ingestor, SubmittedItem, UploadResult } from '../ingest/ingestor';
import { mapRecord } from '../ingest/record-mapping';
import type { UploadSourceType } from '../schema';
import { prefersAsync } from './prefer';
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
 * Reads a batch body (batch and webhook uploads) from its raw bytes: the path, the query and the body are parsed by the
 * endpoint's declaration, in that order, the body only once its bytes are read (and verified). Answers the upload it
 * makes: its records, known in number, and file_hash the sha256 of the bytes.
 */
async function receiveBatch(e: BatchEndpoint, req: Request, res: Response, opts: BatchOptions): Promise<AsyncUpload> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  const target = uploadPlace(parseInput(e.params, req.params, 'path'));
  const query = parseInput(e.query, req.query, 'query');
  const raw = await readRawBody(req, res, BATCH_BODY_MAX_BYTES);
  opts.verify?.(raw);
  const body = parseInput(e.body, parseJson(raw), 'body');
  return {
    target: {
      identity: identityOf(req),
      collection: target.collection,
      recordType: target.record_type,
      sourceType: opts.sourceType,
      sourceName: query.source_name ?? null,
      requestId: req.id,
      startedAt,
      origin: vocabulary.origin,
    },
    progress: { recordsTotal: body.records.length },
    job: {
      items: () => submitted(body.records, vocabulary),
      fileHash: () => `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    },
  };
}

/** Reads a batch body and ingests its records, answering once they are written. */
export async function ingestBatch(ingestor: Ingestor, e: BatchEndpoint, req: Request, res: Response, opts: BatchOptions): Promise<UploadResult> {
  const { target, progress, job } = await receiveBatch(e, req, res, opts);
  return ingestor.ingest(target, job.items(), job.fileHash, progress);
}

/**
 * A batch upload answered as the request prefers (upload/prefer.ts): with `Prefer: respond-async`, 202 once the body
 * is read and checked, its records written after (the vocabulary's `accepted`); otherwise `complete` with the upload's
 * result once they are written.
 */
export function batchUpload(
  ingestor: Ingestor,
  later: AsyncUploads,
  e: BatchEndpoint,
  opts: (req: Request) => BatchOptions,
  complete: (res: Response, result: UploadResult) => Promise<void> | void,
): RequestHandler {
  return async (req, res) => {
    const options = opts(req);
    if (prefersAsync(req)) {
      const uploadId = await later.accept(identityOf(req).tenantId, () => receiveBatch(e, req, res, options));
      return answerAccepted(res, (options.vocabulary ?? CURRENT).accepted(uploadId));
    }
    await complete(res, await ingestBatch(ingestor, e, req, res, options));
  };
}

export function batchRoutes(router: Router, ingestor: Ingestor, later: AsyncUploads): void {
  handle(
    router,
    UPLOAD_BATCH,
    requireScope('upload'),
    refuseOversizedBatch,
    batchUpload(ingestor, later, UPLOAD_BATCH, () => ({ sourceType: 'api' }), (res, result) => answer(res, UPLOAD_BATCH, result)),
  );
}
