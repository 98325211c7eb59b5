import { PORTAL_ENTITY_ARCHIVE, PORTAL_ENTITY_READ, PORTAL_ENTITY_UPDATE } from '@trove/contracts';
import { handle, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import { archiveRecord, updateHandler } from './routes';
import type { RecordsService } from './service';
import { OLDER, entityOf } from './vocabulary';

/**
 * The older portal vocabulary's entities (docs/behaviour/portal-data.md), served by the portal's record handlers in the
 * older vocabulary. Its verticals are collections' (collections/portal-routes.ts) and indexing's (the reindex).
 */
export function portalEntityRoutes(router: Router, records: RecordsService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_ENTITY_READ, [signedIn], async ({ params }, req) => entityOf(await records.get(tenantOf(req), params.id)));
  handle(router, PORTAL_ENTITY_UPDATE, signedIn, updateHandler(records, OLDER, PORTAL_ENTITY_UPDATE));
  serve(router, PORTAL_ENTITY_ARCHIVE, [signedIn], archiveRecord(records));
}
