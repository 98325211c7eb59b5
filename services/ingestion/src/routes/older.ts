import { requireScope, type Router } from '@trove/platform';
import type { Ingestor, UploadResult } from '../ingestor';
import type { UploadService } from '../upload-service';
import { ingestBatch, refuseOversizedBatch } from './batch';
import { PDF_FILES, RECORD_FILES, ingestFile, refuseOversizedFile } from './files';
import { olderIngestionResult, OLDER } from './vocabulary';
import { signatureCheck } from './webhooks';

/** Ids read back per query; the answer holds them all. */
const IDS_PAGE = 10_000;

/**
 * The older vocabulary's ingest routes (spec, Upload: "Older equivalents"): the same uploads as /upload, with
 * vertical and entity_type in the path, `vertical_data` in the records, and the older ingestion result (200) as the
 * answer. Their status and dead letters are read at /ingestions (routes/uploads.ts); the older stream route,
 * answered as the current one, is registered beside it (routes/stream.ts).
 */
export function olderIngestRoutes(
  router: Router,
  ingestor: Ingestor,
  uploads: UploadService,
  opts: { maxBytes: number; webhookSecret: string | undefined },
): void {
  /** The older answer: entity_ids are the ids the ingestor kept for the upload, in item order. */
  const answer = async (result: UploadResult) => {
    const ids: string[] = [];
    for await (const page of uploads.recordIds(result.upload_id, IDS_PAGE)) ids.push(...page);
    return olderIngestionResult(result, ids);
  };

  router.post('/ingest/:vertical/:entity_type/batch', requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    res.status(200).json(await answer(await ingestBatch(ingestor, req, res, { sourceType: 'api', vocabulary: OLDER })));
  });

  router.post('/webhooks/ingest/:vertical/:entity_type', requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    const verify = signatureCheck(opts.webhookSecret, req);
    res.status(200).json(await answer(await ingestBatch(ingestor, req, res, { sourceType: 'webhook', verify, vocabulary: OLDER })));
  });

  const refuseFile = refuseOversizedFile(opts.maxBytes);
  router.post('/ingest/:vertical/:entity_type/upload', requireScope('upload'), refuseFile, async (req, res) => {
    res.status(200).json(await answer(await ingestFile(ingestor, opts.maxBytes, RECORD_FILES, req, res, { vocabulary: OLDER })));
  });
  router.post('/ingest/:vertical/:entity_type/pdf', requireScope('upload'), refuseFile, async (req, res) => {
    res.status(200).json(await answer(await ingestFile(ingestor, opts.maxBytes, PDF_FILES, req, res, { vocabulary: OLDER })));
  });
}
