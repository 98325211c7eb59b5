import { z } from 'zod';
import { visibility } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import { planOfRequest, type Handler } from '../http';
import type { RecordsService } from '../records-service';
import { recordIds, recordUpdate } from './request-schemas';
import { CURRENT, type RecordFields, type RecordVocabulary } from './vocabulary';

const bulkDeleteBody = z.strictObject({ record_ids: recordIds });
const bulkVisibilityBody = z.strictObject({ record_ids: recordIds, visibility });

/**
 * The bulk handlers in one vocabulary (/records with CURRENT, /entities with OLDER). Bulk calls act on the caller's
 * records among the ids, in one transaction: ids of other tenants, unknown ids and archived records are not counted
 * and not touched.
 */
export function bulkHandlers(records: RecordsService, v: RecordVocabulary): Record<'update' | 'archive' | 'retryReset', Handler> {
  const bulkUpdateBody = z.strictObject({ record_ids: recordIds, update: recordUpdate.extend(v.recordFields as RecordFields) });
  return {
    update: v.handler(async (req, res) => {
      const body = v.parse(bulkUpdateBody, req.body, 'body');
      res.json({ updated: await records.bulkUpdate(tenantOf(req), planOfRequest(req), body.record_ids, body.update) });
    }),
    archive: v.handler(async (req, res) => {
      const body = v.parse(bulkDeleteBody, req.body, 'body');
      res.json({ deleted: await records.bulkArchive(tenantOf(req), body.record_ids) });
    }),
    /** Failed records back to pending, retried by indexing (the older vocabulary's by the pipeline's jobs). */
    retryReset: v.handler(async (req, res) => {
      res.json({ reset: await records.retryFailed(tenantOf(req), v.queues) });
    }),
  };
}

export function recordBulkRoutes(router: Router, records: RecordsService): void {
  const handlers = bulkHandlers(records, CURRENT);
  router.patch('/records/bulk', requireScope('records'), handlers.update);
  router.post('/records/bulk-delete', requireScope('records'), handlers.archive);
  router.post('/records/retry-reset', requireScope('records'), handlers.retryReset);

  router.post('/records/bulk-visibility', requireScope('records'), async (req, res) => {
    const body = parseInput(bulkVisibilityBody, req.body, 'body');
    res.json({ updated: await records.bulkSetVisibility(tenantOf(req), body.record_ids, body.visibility) });
  });
}
