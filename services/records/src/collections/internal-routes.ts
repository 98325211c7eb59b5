import { RECORDS_COLLECTION_STATS } from '@trove/contracts';
import { serve, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

/** RECORDS_COLLECTION_STATS: only other services reach /internal routes; the tenant is the identity they call with. */
export function internalCollectionStatsRoutes(router: Router, records: RecordsService): void {
  serve(router, RECORDS_COLLECTION_STATS, async (_input, req) => {
    const tenantId = tenantOf(req);
    const collections = await records.collectionStats(tenantId);
    return { tenant_id: tenantId, total_records: collections.reduce((n, c) => n + c.record_count, 0), collections };
  });
}
