import { PORTAL_RECORD_ARCHIVE, PORTAL_RECORD_READ, PORTAL_RECORD_UPDATE } from '@trove/contracts';
import { handle, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import { archiveRecord, updateHandler } from './routes';
import type { RecordsService } from './service';
import { CURRENT } from './vocabulary';

/**
 * The portal's record routes: a signed-in person's view of their tenant's records (keys are refused with 401). Browsing
 * a collection's records is collections' (collections/portal-routes.ts), reindex and visibility their features'.
 */
export function portalRecordRoutes(router: Router, records: RecordsService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_RECORD_READ, [signedIn], ({ params }, req) => records.get(tenantOf(req), params.id));
  handle(router, PORTAL_RECORD_UPDATE, signedIn, updateHandler(records, CURRENT, PORTAL_RECORD_UPDATE));
  serve(router, PORTAL_RECORD_ARCHIVE, [signedIn], archiveRecord(records));
}
