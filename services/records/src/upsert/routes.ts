import { BULK_UPSERT_MAX_BYTES, RECORDS_BULK_UPSERT, RECORDS_INDEXING_SUMMARY, RECORDS_REQUEUE } from '@trove/contracts';
import { jsonBody, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { planOfRequest } from '../http';
import type { RecordsService } from '../records-service';

/** A list of record ids reads at most this much JSON. */
const IDS_JSON_LIMIT = '1mb';

/**
 * Internal: ingestion (and later connectors) write an upload's records here, one chunk per call and per transaction,
 * acting with the uploading tenant's identity. Any invalid item answers 422 naming it, and nothing is written. New
 * records past the plan that identity carries answer `refused` one by one; the rest of the chunk is written.
 */
export function bulkUpsertRoutes(router: Router, records: RecordsService): void {
  serve(router, RECORDS_BULK_UPSERT, [requireScope('upload', 'records'), jsonBody(`${BULK_UPSERT_MAX_BYTES}b`)], async ({ body }, req) => {
    const { pipeline, vocabulary, ...chunk } = body;
    const origin = { vocabulary: vocabulary ?? 'current', pipeline: pipeline ?? false };
    return records.bulkUpsert(tenantOf(req), planOfRequest(req), { ...chunk, origin });
  });

  // The older pipeline routes of ingestion: where an upload's records stand in indexing, and queueing them again.
  serve(router, RECORDS_INDEXING_SUMMARY, [requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT)], ({ body }, req) =>
    records.indexingSummary(tenantOf(req), body.ids),
  );
  serve(router, RECORDS_REQUEUE, [requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT)], async ({ body }, req) => ({
    requeued: await records.requeue(tenantOf(req), body.ids),
  }));
}
