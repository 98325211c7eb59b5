import { INGEST_BATCH, INGEST_FILE, INGEST_PDF, INGEST_STREAM, INGESTION_ERRORS, INGESTION_STATUS, WEBHOOK_INGEST } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { answer } from '../http';
import type { AsyncUploads } from '../ingest/async-uploads';
import type { Ingestor, UploadResult } from '../ingest/ingestor';
import type { UploadService } from '../ingest/upload-service';
import type { UploadRow } from '../ingest/upload-store';
import { guardStream, streamUpload, type StreamRouteOptions } from '../stream/routes';
import type { StreamBuffers } from '../stream/stream-buffers';
import { batchUpload, refuseOversizedBatch } from '../upload/batch';
import { PDF_FILES, RECORD_FILES, fileUpload, refuseOversizedFile } from '../upload/files';
import { iso, writeDeadLetters } from '../upload/status';
import { signatureCheck } from '../upload/webhooks';
import { OLDER, olderDeadLetter, olderIngestionResult, olderStatus } from './vocabulary';

/** Ids read back per query; the answer holds them all. */
const IDS_PAGE = 10_000;

/** The older vocabulary's status read of an ingestion. */
function olderStatusView(row: UploadRow) {
  return {
    id: row.id,
    status: olderStatus(row.status),
    record_count: row.accepted,
    duplicate_count: row.dedup_skipped,
    error_count: row.rejected,
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}

export interface OlderRouteOptions {
  maxBytes: number;
  webhookSecret: string | undefined;
  /** The stream's limits, as the current stream route has them. */
  stream: StreamRouteOptions;
}

/**
 * The older vocabulary's routes (docs/behaviour/ingestion.md, older uploads): the same uploads as /upload, with
 * vertical and entity_type in the path, `vertical_data` in the records, and the older ingestion result (200) as the
 * answer; the older stream, answered as the current one; and the status and dead letters of an ingestion at
 * /ingestions, read as /uploads reads them (upload/status.ts), in the older names. The older pipeline routes are in
 * pipeline.ts.
 */
export function olderIngestRoutes(
  router: Router,
  ingestor: Ingestor,
  later: AsyncUploads,
  uploads: UploadService,
  streams: StreamBuffers,
  opts: OlderRouteOptions,
): void {
  /** The older answer: entity_ids are the ids the ingestor kept for the upload, in item order. */
  const ingestionResult = async (result: UploadResult) => {
    const ids: string[] = [];
    for await (const page of uploads.recordIds(result.upload_id, IDS_PAGE)) ids.push(...page);
    return olderIngestionResult(result, ids);
  };

  handle(
    router,
    INGEST_BATCH,
    requireScope('upload'),
    refuseOversizedBatch,
    batchUpload(ingestor, later, INGEST_BATCH, () => ({ sourceType: 'api', vocabulary: OLDER }), async (res, result) => {
      answer(res, INGEST_BATCH, await ingestionResult(result));
    }),
  );

  handle(
    router,
    WEBHOOK_INGEST,
    requireScope('upload'),
    refuseOversizedBatch,
    batchUpload(
      ingestor,
      later,
      WEBHOOK_INGEST,
      (req) => ({ sourceType: 'webhook', verify: signatureCheck(opts.webhookSecret, req), vocabulary: OLDER }),
      async (res, result) => answer(res, WEBHOOK_INGEST, await ingestionResult(result)),
    ),
  );

  const refuseFile = refuseOversizedFile(opts.maxBytes);
  const files = { ingestor, later, maxBytes: opts.maxBytes };
  handle(router, INGEST_FILE, requireScope('upload'), refuseFile, fileUpload(files, INGEST_FILE, RECORD_FILES, OLDER, ingestionResult));
  handle(router, INGEST_PDF, requireScope('upload'), refuseFile, fileUpload(files, INGEST_PDF, PDF_FILES, OLDER, ingestionResult));

  handle(router, INGEST_STREAM, requireScope('upload'), guardStream(opts.stream), streamUpload(streams, later, opts.stream, INGEST_STREAM, OLDER));

  // Another tenant's ingestion is indistinguishable from a missing one (404), as on /uploads.
  serve(router, INGESTION_STATUS, [requireScope('upload')], async ({ params }, req) => olderStatusView(await uploads.get(tenantOf(req), params.ingestion_id)));

  // The list is written out as it is read, so the handler answers itself.
  handle(router, INGESTION_ERRORS, requireScope('upload'), async (req, res) => {
    const { ingestion_id } = parseInput(INGESTION_ERRORS.params, req.params, 'path');
    const row = await uploads.get(tenantOf(req), ingestion_id);
    await writeDeadLetters(res, uploads, row.id, olderDeadLetter);
  });
}
