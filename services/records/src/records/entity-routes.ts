import {
  ENTITY_ARCHIVE,
  ENTITY_BULK_DELETE,
  ENTITY_BULK_UPDATE,
  ENTITY_CREATE,
  ENTITY_LIST,
  ENTITY_READ,
  ENTITY_UPDATE,
} from '@trove/contracts';
import { handle, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { bulkHandlers } from './bulk-routes';
import { archiveRecord, createHandler, listHandler, updateHandler } from './routes';
import type { RecordsService } from './service';
import { OLDER, entityOf } from './vocabulary';

/**
 * The older vocabulary's record routes (docs/behaviour/older-vocabulary.md, "Entity routes"): the /records handlers run
 * with OLDER and the ENTITY_ declarations. An entity is created pending and indexed by the pipeline's jobs; reads,
 * updates, deletes and bulk calls behave as their /records twins, in the older names (POST /entities/retry-reset is
 * indexing's).
 */
export function entityRoutes(router: Router, records: RecordsService): void {
  const scope = requireScope('records');
  // Fixed paths first: /entities/bulk would otherwise be taken for an entity id.
  const bulk = bulkHandlers(records, OLDER, { update: ENTITY_BULK_UPDATE, archive: ENTITY_BULK_DELETE });
  handle(router, ENTITY_BULK_UPDATE, scope, bulk.update);
  handle(router, ENTITY_BULK_DELETE, scope, bulk.archive);

  handle(router, ENTITY_CREATE, scope, createHandler(records, OLDER, ENTITY_CREATE));
  handle(router, ENTITY_LIST, scope, listHandler(records, OLDER, ENTITY_LIST));
  serve(router, ENTITY_READ, [scope], async ({ params }, req) => entityOf(await records.get(tenantOf(req), params.id)));
  handle(router, ENTITY_UPDATE, scope, updateHandler(records, OLDER, ENTITY_UPDATE));
  serve(router, ENTITY_ARCHIVE, [scope], archiveRecord(records));
}
