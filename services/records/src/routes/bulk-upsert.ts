import {
  BULK_UPSERT_MAX_BYTES,
  RECORDS_BULK_UPSERT_PATH,
  RECORDS_INDEXING_SUMMARY_PATH,
  RECORDS_REQUEUE_PATH,
  bulkUpsertRequest,
  recordIdsRequest,
  type BulkUpsertResponse,
} from '@trove/contracts';
import { jsonBody, parseInput, requireScope, tenantOf } from '@trove/platform';
import { planOfRequest, type Router } from '../http';
import type { RecordsService } from '../records-service';

/**
 * Internal: ingestion (and later connectors) write an upload's records here, one chunk per call and per transaction,
 * acting with the uploading tenant's identity. Any invalid item answers 422 naming it, and nothing is written. New
 * records past the plan that identity carries answer `refused` one by one; the rest of the chunk is written.
 */
export function bulkUpsertRoutes(router: Router, records: RecordsService): void {
  router.post(RECORDS_BULK_UPSERT_PATH, requireScope('upload', 'records'), jsonBody(`${BULK_UPSERT_MAX_BYTES}b`), async (req, res) => {
    const { pipeline, vocabulary, ...body } = parseInput(bulkUpsertRequest, req.body, 'body');
    const origin = { vocabulary: vocabulary ?? 'current', pipeline: pipeline ?? false };
    const outcome: BulkUpsertResponse = await records.bulkUpsert(tenantOf(req), planOfRequest(req), { ...body, origin });
    res.json(outcome);
  });

  // The older pipeline routes of ingestion: where an upload's records stand in indexing, and queueing them again.
  const IDS_JSON_LIMIT = '1mb';
  router.post(RECORDS_INDEXING_SUMMARY_PATH, requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT), async (req, res) => {
    const { ids } = parseInput(recordIdsRequest, req.body, 'body');
    res.json(await records.indexingSummary(tenantOf(req), ids));
  });
  router.post(RECORDS_REQUEUE_PATH, requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT), async (req, res) => {
    const { ids } = parseInput(recordIdsRequest, req.body, 'body');
    res.json({ requeued: await records.requeue(tenantOf(req), ids) });
  });
}
