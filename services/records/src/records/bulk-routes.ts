import type { z } from 'zod';
import { RECORD_BULK_DELETE, RECORD_BULK_UPDATE, type Endpoint } from '@trove/contracts';
import { handle, requireScope, tenantOf, type Router } from '@trove/platform';
import { planOfRequest, type Handler } from '../shared/http';
import type { RecordsService } from './service';
import type { RecordUpdate } from './update';
import { CURRENT, type RecordVocabulary } from './vocabulary';

/** The declarations of the bulk calls a vocabulary's handlers read their requests with (RECORD_BULK_UPDATE, ENTITY_BULK_UPDATE, …). */
interface BulkEndpoints {
  update: Endpoint & { body: z.ZodType<{ record_ids: string[]; update: RecordUpdate }> };
  archive: Endpoint & { body: z.ZodType<{ record_ids: string[] }> };
}

/**
 * The bulk handlers in one vocabulary (/records with CURRENT, /entities with OLDER). Bulk calls act on the caller's
 * records among the ids, in one transaction: ids of other tenants, unknown ids and archived records are not counted
 * and not touched.
 */
export function bulkHandlers(records: RecordsService, v: RecordVocabulary, E: BulkEndpoints): Record<'update' | 'archive', Handler> {
  return {
    update: v.handler(async (req, res) => {
      const body = v.parse(E.update.body, req.body, 'body');
      res.json({ updated: await records.bulkUpdate(tenantOf(req), planOfRequest(req), body.record_ids, body.update) });
    }),
    archive: v.handler(async (req, res) => {
      const body = v.parse(E.archive.body, req.body, 'body');
      res.json({ deleted: await records.bulkArchive(tenantOf(req), body.record_ids) });
    }),
  };
}

/**
 * PATCH /records/bulk and POST /records/bulk-delete (the bulk visibility and retry-reset calls are their features':
 * visibility/routes.ts, indexing/routes.ts).
 */
export function recordBulkRoutes(router: Router, records: RecordsService): void {
  const scope = requireScope('records');
  const handlers = bulkHandlers(records, CURRENT, { update: RECORD_BULK_UPDATE, archive: RECORD_BULK_DELETE });
  handle(router, RECORD_BULK_UPDATE, scope, handlers.update);
  handle(router, RECORD_BULK_DELETE, scope, handlers.archive);
}
