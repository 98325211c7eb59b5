import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ERRORS, identityOf, parseInput, requireScope } from '@trove/platform';
import { mapRecord } from '../domain/record-mapping';
import type { RequestHandler } from 'express';
import { parseJson, readRawBody, refuseLargerThan, type Request, type Response, type Router } from '../http';
import type { Ingestor, SubmittedItem, UploadResult } from '../ingestor';
import type { UploadSourceType } from '../store/schema';
import { sourceNameQuery, targetParams } from './target';

export const BATCH_MAX_RECORDS = 10_000;
/** Room for 10,000 records with generous collection_data; beyond it the body answers 413. */
export const BATCH_BODY_MAX_BYTES = 64 * 1024 * 1024;

function bodyTooLarge(max: number) {
  return ERRORS.payloadTooLarge(`Request body exceeds the limit of ${max} bytes`);
}

/** A declared length over the limit is refused before the body is read (the body parser would drain it first). */
export const refuseOversizedBatch: RequestHandler = refuseLargerThan(() => BATCH_BODY_MAX_BYTES, bodyTooLarge);

/** Each record is checked on its own (a bad one is a dead letter); the envelope itself must hold a list. */
const batchBody = z.strictObject({ records: z.array(z.unknown()).max(BATCH_MAX_RECORDS) });

function* submitted(records: unknown[]): Iterable<SubmittedItem> {
  for (let index = 0; index < records.length; index++) {
    yield { index, raw: records[index], mapped: mapRecord(records[index]) };
  }
}

/**
 * Reads a batch body (batch and webhook uploads) from its raw bytes and ingests its records. `verify` sees the exact
 * bytes before they are parsed; file_hash is their sha256.
 */
export async function ingestBatch(
  ingestor: Ingestor,
  req: Request,
  res: Response,
  sourceType: UploadSourceType,
  verify: (raw: Buffer) => void = () => undefined,
): Promise<UploadResult> {
  const startedAt = performance.now();
  const params = parseInput(targetParams, req.params, 'path');
  const query = parseInput(sourceNameQuery, req.query, 'query');
  const raw = await readRawBody(req, res, BATCH_BODY_MAX_BYTES);
  verify(raw);
  const body = parseInput(batchBody, parseJson(raw), 'body');
  return ingestor.ingest(
    {
      identity: identityOf(req),
      collection: params.collection,
      recordType: params.record_type,
      sourceType,
      sourceName: query.source_name ?? null,
      requestId: req.id,
      startedAt,
    },
    submitted(body.records),
    () => `sha256:${createHash('sha256').update(raw).digest('hex')}`,
  );
}

export function batchRoutes(router: Router, ingestor: Ingestor): void {
  router.post('/upload/:collection/:record_type/batch', requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    res.status(201).json(await ingestBatch(ingestor, req, res, 'api'));
  });
}
