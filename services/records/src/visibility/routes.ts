import {
  COLLECTION_DEFAULT_VISIBILITY,
  PORTAL_COLLECTION_DEFAULT_VISIBILITY,
  PORTAL_RECORD_VISIBILITY,
  RECORD_BULK_VISIBILITY,
  RECORD_VISIBILITY,
} from '@trove/contracts';
import { handle, parseInput, requirePortalUser, requireScope, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records/service';
import type { VisibilityService } from './service';

/**
 * Every route that changes who may see records, for API keys and the portal. Each body is read as sent (an absent body
 * is a 422 on `body`), so the handlers parse it themselves.
 */
export function visibilityRoutes(router: Router, visibility: VisibilityService, records: RecordsService): void {
  handle(router, RECORD_VISIBILITY, requireScope('records'), async (req, res) => {
    const { id } = parseInput(RECORD_VISIBILITY.params, req.params, 'path');
    const body = parseInput(RECORD_VISIBILITY.body, req.body, 'body');
    await visibility.set(tenantOf(req), id, body.visibility);
    res.json({ id, visibility: body.visibility });
  });

  handle(router, RECORD_BULK_VISIBILITY, requireScope('records'), async (req, res) => {
    const body = parseInput(RECORD_BULK_VISIBILITY.body, req.body, 'body');
    res.json({ updated: await visibility.bulkSet(tenantOf(req), body.record_ids, body.visibility) });
  });

  /** Only records created afterwards take the new default; existing records keep their visibility. */
  handle(router, COLLECTION_DEFAULT_VISIBILITY, requireScope('records'), async (req, res) => {
    const params = parseInput(COLLECTION_DEFAULT_VISIBILITY.params, req.params, 'path');
    const body = parseInput(COLLECTION_DEFAULT_VISIBILITY.body, req.body, 'body');
    await visibility.setDefault(tenantOf(req), params.collection, body.default_visibility);
    res.json({ collection: params.collection, default_visibility: body.default_visibility });
  });

  const signedIn = requirePortalUser();

  handle(router, PORTAL_RECORD_VISIBILITY, signedIn, async (req, res) => {
    const { id } = parseInput(PORTAL_RECORD_VISIBILITY.params, req.params, 'path');
    const body = parseInput(PORTAL_RECORD_VISIBILITY.body, req.body, 'body');
    const tenantId = tenantOf(req);
    await visibility.set(tenantId, id, body.visibility);
    const record = await records.get(tenantId, id);
    res.json({ id: record.id, visibility: record.visibility, updated_at: record.updated_at });
  });

  /**
   * Unlike PATCH /collections/{name}/default-visibility, which only sets what future records take, the portal's also
   * gives every active record the new visibility. A collection not used yet is created (200): the default is then
   * ready for its first records.
   */
  handle(router, PORTAL_COLLECTION_DEFAULT_VISIBILITY, signedIn, async (req, res) => {
    const { name } = parseInput(PORTAL_COLLECTION_DEFAULT_VISIBILITY.params, req.params, 'path');
    const body = parseInput(PORTAL_COLLECTION_DEFAULT_VISIBILITY.body, req.body, 'body');
    const updated = await visibility.applyDefault(tenantOf(req), name, body.default_visibility);
    res.json({ collection: name, default_visibility: body.default_visibility, records_updated: updated });
  });
}
