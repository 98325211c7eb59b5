import { BULK_UPSERT_MAX_BYTES, RECORDS_BULK_UPSERT } from '@trove/contracts';
import { jsonBody, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { planOfRequest } from '../shared/http';
import type { UpsertService } from './service';

/**
 * Internal: ingestion (and later connectors) write an upload's records here, one chunk per call and per transaction,
 * acting with the uploading tenant's identity. Any invalid item answers 422 naming it, and nothing is written. New
 * records past the plan that identity carries answer `refused` one by one; the rest of the chunk is written.
 */
export function bulkUpsertRoutes(router: Router, upsert: UpsertService): void {
  serve(router, RECORDS_BULK_UPSERT, [requireScope('upload', 'records'), jsonBody(`${BULK_UPSERT_MAX_BYTES}b`)], async ({ body }, req) => {
    const { pipeline, vocabulary, ...chunk } = body;
    const origin = { vocabulary: vocabulary ?? 'current', pipeline: pipeline ?? false };
    return upsert.bulkUpsert(tenantOf(req), planOfRequest(req), { ...chunk, origin });
  });
}
