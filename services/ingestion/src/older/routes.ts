import { INGEST_BATCH, INGEST_FILE, INGEST_PDF, WEBHOOK_INGEST } from '@trove/contracts';
import { handle, requireScope, type Router } from '@trove/platform';
import { answer } from '../http';
import type { Ingestor, UploadResult } from '../ingestor';
import type { UploadService } from '../upload-service';
import { ingestBatch, refuseOversizedBatch } from './batch';
import { PDF_FILES, RECORD_FILES, fileUpload, refuseOversizedFile } from './files';
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
  const ingestionResult = async (result: UploadResult) => {
    const ids: string[] = [];
    for await (const page of uploads.recordIds(result.upload_id, IDS_PAGE)) ids.push(...page);
    return olderIngestionResult(result, ids);
  };

  handle(router, INGEST_BATCH, requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    answer(res, INGEST_BATCH, await ingestionResult(await ingestBatch(ingestor, INGEST_BATCH, req, res, { sourceType: 'api', vocabulary: OLDER })));
  });

  handle(router, WEBHOOK_INGEST, requireScope('upload'), refuseOversizedBatch, async (req, res) => {
    const verify = signatureCheck(opts.webhookSecret, req);
    answer(res, WEBHOOK_INGEST, await ingestionResult(await ingestBatch(ingestor, WEBHOOK_INGEST, req, res, { sourceType: 'webhook', verify, vocabulary: OLDER })));
  });

  const refuseFile = refuseOversizedFile(opts.maxBytes);
  handle(router, INGEST_FILE, requireScope('upload'), refuseFile, fileUpload(ingestor, opts.maxBytes, INGEST_FILE, RECORD_FILES, OLDER, ingestionResult));
  handle(router, INGEST_PDF, requireScope('upload'), refuseFile, fileUpload(ingestor, opts.maxBytes, INGEST_PDF, PDF_FILES, OLDER, ingestionResult));
}
