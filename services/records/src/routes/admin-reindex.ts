import { z } from 'zod';
import { collectionName } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';
import { idParams } from './request-schemas';

const collectionParams = z.object({ collection: collectionName });

/** Re-indexing flows through the normal pipeline: records go back to pending with a new version and a new event. */
export function adminReindexRoutes(router: Router, records: RecordsService): void {
  router.post('/admin/reindex/record/:id', requireScope('admin'), async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    await records.reindexRecord(tenantOf(req), id);
    res.json({ record_id: id, status: 'pending', message: `Record ${id} queued for reindexing` });
  });

  router.post('/admin/reindex/:collection', requireScope('admin'), async (req, res) => {
    const { collection } = parseInput(collectionParams, req.params, 'path');
    const reset = await records.reindexCollection(tenantOf(req), collection);
    res.json({ collection, records_reset: reset, message: `${reset} records of ${collection} queued for reindexing` });
  });
}
