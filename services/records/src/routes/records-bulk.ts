import { z } from 'zod';
import { visibility } from '@trove/contracts';
import { parseInput, requireScope, tenantOf } from '@trove/platform';
import { planOfRequest, type Router } from '../http';
import type { RecordsService } from '../records-service';
import { recordIds, recordUpdate } from './request-schemas';

const bulkUpdateBody = z.strictObject({ record_ids: recordIds, update: recordUpdate });
const bulkDeleteBody = z.strictObject({ record_ids: recordIds });
const bulkVisibilityBody = z.strictObject({ record_ids: recordIds, visibility });

/**
 * Bulk calls act on the caller's records among the ids, in one transaction: ids of other tenants, unknown ids and
 * archived records are not counted and not touched.
 */
export function recordBulkRoutes(router: Router, records: RecordsService): void {
  router.patch('/records/bulk', requireScope('records'), async (req, res) => {
    const body = parseInput(bulkUpdateBody, req.body, 'body');
    res.json({ updated: await records.bulkUpdate(tenantOf(req), planOfRequest(req), body.record_ids, body.update) });
  });

  router.post('/records/bulk-delete', requireScope('records'), async (req, res) => {
    const body = parseInput(bulkDeleteBody, req.body, 'body');
    res.json({ deleted: await records.bulkArchive(tenantOf(req), body.record_ids) });
  });

  router.post('/records/bulk-visibility', requireScope('records'), async (req, res) => {
    const body = parseInput(bulkVisibilityBody, req.body, 'body');
    res.json({ updated: await records.bulkSetVisibility(tenantOf(req), body.record_ids, body.visibility) });
  });
}
