import {
  PORTAL_COLLECTION_ARCHIVE,
  PORTAL_COLLECTION_DEFAULT_VISIBILITY,
  PORTAL_COLLECTION_LIST,
  PORTAL_COLLECTION_REINDEX,
  planOf,
} from '@trove/contracts';
import { handle, identityOf, parseInput, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import type { PortalService } from '../portal-service';
import { CURRENT_WRITE, type RecordsService } from '../records-service';

/**
 * The portal's collection routes (the blue-green replace routes under /portal/collections live in their own file; the
 * older vocabulary's /portal/verticals twins in portal-entities.ts).
 */
export function portalCollectionRoutes(router: Router, records: RecordsService, portal: PortalService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_COLLECTION_LIST, [signedIn], (_input, req) => portal.collections(tenantOf(req), planOf(identityOf(req).plan)));

  /** Archives every record of the collection: gone from private search and the Open API once this answers. */
  serve(router, PORTAL_COLLECTION_ARCHIVE, [signedIn], async ({ params }, req) => ({
    collection: params.name,
    records_archived: await records.archiveCollection(tenantOf(req), params.name),
  }));
  serve(router, PORTAL_COLLECTION_REINDEX, [signedIn], async ({ params }, req) => ({
    collection: params.name,
    records_queued: await records.reindexCollection(tenantOf(req), params.name, CURRENT_WRITE),
  }));

  /**
   * Unlike PATCH /collections/{name}/default-visibility, which only sets what future records take, the portal's also
   * gives every active record the new visibility. A collection not used yet is created (200): the default is then
   * ready for its first records. The body is read as sent (an absent body is a 422 on `body`), so the handler parses it.
   */
  handle(router, PORTAL_COLLECTION_DEFAULT_VISIBILITY, signedIn, async (req, res) => {
    const { name } = parseInput(PORTAL_COLLECTION_DEFAULT_VISIBILITY.params, req.params, 'path');
    const body = parseInput(PORTAL_COLLECTION_DEFAULT_VISIBILITY.body, req.body, 'body');
    const updated = await records.applyDefaultVisibility(tenantOf(req), name, body.default_visibility);
    res.json({ collection: name, default_visibility: body.default_visibility, records_updated: updated });
  });
}
