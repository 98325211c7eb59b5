import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ERRORS, identityOf, parseInput, requireScope, type Router } from '@trove/platform';
import { mapRecord } from '../domain/record-mapping';
import type { RequestHandler } from 'express';
import { guardBody, parseJson, readRawBody, type Request, type Response } from '../http';
import type { Ingestor, SubmittedItem, UploadResult } from '../ingestor';
import type { UploadSourceType } from '../store/schema';
import { sourceNameQuery } from './target';
import { CURRENT, type Vocabulary } from './vocabulary';

export const BATCH_MAX_RECORDS = 10_000;
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

/** Each record is checked on its own (a bad one is a dead letter); the envelope itself must hold a list. */
const batchBody = z.strictObject({ records: z.array(z.unknown()).max(BATCH_MAX_RECORDS) });

function* submitted(records: unknown[], vocabulary: Vocabulary): Iterable<SubmittedItem> {
  for (let index = 0; index < records.length; index++) {
    yield { index, raw: records[index], mapped: mapRecord(records[index], vocabulary.mapping) };
  }
}

export interface BatchOptions {
  sourceType: UploadSourceType;
  /** Sees the exact bytes before they are parsed (the webhook signature). */
  verify?: (raw: Buffer) => void;
  vocabulary?: Vocabulary;
}

/** Reads a batch body (batch and webhook uploads) from its raw bytes and ingests its records; file_hash is their sha256. */
export async function ingestBatch(ingestor: Ingestor, req: Request, res: Response, opts: BatchOptions): Promise<UploadResult> {
  const startedAt = performance.now();
  const vocabulary = opts.vocabulary ?? CURRENT;
  const target = vocabulary.target(req.params);
  const query = parseInput(sourceNameQuery, req.query, 'query');
  const raw = await readRawBody(req, res, BATCH_BODY_MAX_BYTES);
  opts.verify?.(raw);
  const body = parseInput(batchBody, parseJson(raw), 'body');
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
  router.post('/upload/:collection/:record_type/batch', requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    res.status(201).json(await ingestBatch(ingestor, req, res, { sourceType: 'api' }));
  });
}
