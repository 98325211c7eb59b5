import { PORTAL_COLLECTION_ARCHIVE, PORTAL_COLLECTION_LIST, PORTAL_RECORD_BROWSE, PORTAL_VERTICAL_ARCHIVE, planOf } from '@trove/contracts';
import { identityOf, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import type { PortalService } from './portal-service';
import type { CollectionsService } from './service';

/**
 * The portal's collection routes, and the older vocabulary's /portal/verticals twin of the archive (a collection's
 * blue-green replace is replace's, its reindex indexing's, its default visibility visibility's).
 */
export function portalCollectionRoutes(router: Router, collections: CollectionsService, portal: PortalService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_COLLECTION_LIST, [signedIn], (_input, req) => portal.collections(tenantOf(req), planOf(identityOf(req).plan)));

  /** A collection's records, a page at a time. */
  serve(router, PORTAL_RECORD_BROWSE, [signedIn], ({ query }, req) =>
    portal.browse({ tenantId: tenantOf(req), collection: query.collection, recordType: query.record_type, limit: query.limit, offset: query.offset }),
  );

  /** Archives every record of the collection: gone from private search and the Open API once this answers. */
  serve(router, PORTAL_COLLECTION_ARCHIVE, [signedIn], async ({ params }, req) => ({
    collection: params.name,
    records_archived: await collections.archive(tenantOf(req), params.name),
  }));
  /** Archives every entity of the vertical: gone from private search and the Open API once this answers. */
  serve(router, PORTAL_VERTICAL_ARCHIVE, [signedIn], async ({ params }, req) => ({
    vertical: params.name,
    entities_archived: await collections.archive(tenantOf(req), params.name),
  }));
}
