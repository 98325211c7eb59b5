import { RECORDS_COLLECTION_STATS_PATH, type CollectionStatsAnswer } from '@trove/contracts';
import { tenantOf } from '@trove/platform';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';

/**
 * The calling service's tenant's collections with their record and public counts (portal usage and analytics).
 * Only other services reach /internal routes; the tenant is the identity they call with, never a parameter.
 */
export function internalCollectionStatsRoutes(router: Router, records: RecordsService): void {
  router.get(RECORDS_COLLECTION_STATS_PATH, async (req, res) => {
    const tenantId = tenantOf(req);
    const collections = await records.collectionStats(tenantId);
    const answer: CollectionStatsAnswer = {
      tenant_id: tenantId,
      total_records: collections.reduce((n, c) => n + c.record_count, 0),
      collections,
    };
    res.json(answer);
  });
}
