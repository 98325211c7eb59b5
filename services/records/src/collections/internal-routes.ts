import { RECORDS_COLLECTION_STATS } from '@trove/contracts';
import { serve, tenantOf, type Router } from '@trove/platform';
import type { CollectionsService } from './service';

/** RECORDS_COLLECTION_STATS: only other services reach /internal routes; the tenant is the identity they call with. */
export function internalCollectionStatsRoutes(router: Router, collections: CollectionsService): void {
  serve(router, RECORDS_COLLECTION_STATS, async (_input, req) => {
    const tenantId = tenantOf(req);
    const stats = await collections.stats(tenantId);
    return { tenant_id: tenantId, total_records: stats.reduce((n, c) => n + c.record_count, 0), collections: stats };
  });
}
