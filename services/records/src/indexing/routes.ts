import { ADMIN_REINDEX_COLLECTION, ADMIN_REINDEX_RECORD } from '@trove/contracts';
import { requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

/** Re-indexing flows through the normal pipeline: records go back to pending with a new version and a new event. */
export function adminReindexRoutes(router: Router, records: RecordsService): void {
  serve(router, ADMIN_REINDEX_RECORD, [requireScope('admin')], async ({ params: { id } }, req) => {
    await records.reindexRecord(tenantOf(req), id);
    return { record_id: id, status: 'pending' as const, message: `Record ${id} queued for reindexing` };
  });

  serve(router, ADMIN_REINDEX_COLLECTION, [requireScope('admin')], async ({ params: { collection } }, req) => {
    const reset = await records.reindexCollection(tenantOf(req), collection);
    return { collection, records_reset: reset, message: `${reset} records of ${collection} queued for reindexing` };
  });
}
