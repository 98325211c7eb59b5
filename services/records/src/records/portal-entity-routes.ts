import { PORTAL_ENTITY_ARCHIVE, PORTAL_ENTITY_READ, PORTAL_ENTITY_UPDATE, PORTAL_VERTICAL_ARCHIVE, PORTAL_VERTICAL_REINDEX } from '@trove/contracts';
import { handle, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import { PIPELINE_WRITE, type RecordsService } from '../records-service';
import { archiveRecord, updateHandler } from './records';
import { OLDER, entityOf } from './vocabulary';

/**
 * The older portal vocabulary (spec, Older portal): entities and verticals, served by the portal's record and
 * collection handlers in the older vocabulary. A vertical's reindex queues its entities for the pipeline's jobs.
 */
export function portalEntityRoutes(router: Router, records: RecordsService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_ENTITY_READ, [signedIn], async ({ params }, req) => entityOf(await records.get(tenantOf(req), params.id)));
  handle(router, PORTAL_ENTITY_UPDATE, signedIn, updateHandler(records, OLDER, PORTAL_ENTITY_UPDATE));
  serve(router, PORTAL_ENTITY_ARCHIVE, [signedIn], archiveRecord(records));

  /** Archives every entity of the vertical: gone from private search and the Open API once this answers. */
  serve(router, PORTAL_VERTICAL_ARCHIVE, [signedIn], async ({ params }, req) => ({
    vertical: params.name,
    entities_archived: await records.archiveCollection(tenantOf(req), params.name),
  }));
  serve(router, PORTAL_VERTICAL_REINDEX, [signedIn], async ({ params }, req) => ({
    vertical: params.name,
    entities_queued: await records.reindexCollection(tenantOf(req), params.name, PIPELINE_WRITE),
  }));
}
