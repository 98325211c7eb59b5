import { PIPELINE_STATUS, PIPELINE_TRIGGER, RECORD_IDS_MAX } from '@trove/contracts';
import { identityOf, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { UploadService } from '../ingest/upload-service';
import type { RecordsPort } from '../records';

/**
 * The older pipeline routes (docs/behaviour/ingestion.md): where the records an upload wrote (created or updated)
 * stand in indexing, and queueing the pending and failed ones again. Records deleted since are not counted.
 */
export function pipelineRoutes(router: Router, uploads: UploadService, records: RecordsPort): void {
  const load = (tenantId: string, id: string) => uploads.get(tenantId, id, 'Ingestion');

  serve(router, PIPELINE_STATUS, [requireScope('upload')], async ({ params }, req) => {
    const upload = await load(tenantOf(req), params.ingestion_id);
    const totals = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0 };
    for await (const ids of uploads.recordIds(upload.id, RECORD_IDS_MAX)) {
      const s = await records.indexingSummary(identityOf(req), ids);
      totals.total += s.total;
      totals.pending += s.pending;
      totals.processing += s.processing;
      totals.completed += s.indexed;
      totals.failed += s.failed;
    }
    return { ingestion_id: upload.id, ...totals };
  });

  serve(router, PIPELINE_TRIGGER, [requireScope('upload')], async ({ params }, req) => {
    const upload = await load(tenantOf(req), params.ingestion_id);
    let triggered = 0;
    for await (const ids of uploads.recordIds(upload.id, RECORD_IDS_MAX)) triggered += await records.requeue(identityOf(req), ids);
    return { triggered, message: `${triggered} records of ingestion ${upload.id} queued for indexing` };
  });
}
