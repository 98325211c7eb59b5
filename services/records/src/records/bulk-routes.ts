import type { z } from 'zod';
import { RECORD_BULK_DELETE, RECORD_BULK_UPDATE, RECORD_BULK_VISIBILITY, RECORD_RETRY_RESET, type Endpoint } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { RecordUpdate } from '../domain/update';
import { planOfRequest, type Handler } from '../http';
import type { RecordsService } from '../records-service';
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

/** Failed records back to pending, retried by indexing (the older vocabulary's by the pipeline's jobs); served. */
export function retryReset(records: RecordsService, v: RecordVocabulary) {
  return async (_input: unknown, req: Parameters<Handler>[0]) => ({ reset: await records.retryFailed(tenantOf(req), v.queues) });
}

export function recordBulkRoutes(router: Router, records: RecordsService): void {
  const scope = requireScope('records');
  const handlers = bulkHandlers(records, CURRENT, { update: RECORD_BULK_UPDATE, archive: RECORD_BULK_DELETE });
  handle(router, RECORD_BULK_UPDATE, scope, handlers.update);
  handle(router, RECORD_BULK_DELETE, scope, handlers.archive);
  serve(router, RECORD_RETRY_RESET, [scope], retryReset(records, CURRENT));

  // The body is read as sent (an absent body is a 422 on `body`), so the handler parses it itself.
  handle(router, RECORD_BULK_VISIBILITY, scope, async (req, res) => {
    const body = parseInput(RECORD_BULK_VISIBILITY.body, req.body, 'body');
    res.json({ updated: await records.bulkSetVisibility(tenantOf(req), body.record_ids, body.visibility) });
  });
}
