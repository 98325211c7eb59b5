import { COLLECTION_LIST } from '@trove/contracts';
import { requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { CollectionsService } from './service';

/** GET /collections (a collection's default visibility is visibility's: visibility/routes.ts). */
export function collectionRoutes(router: Router, collections: CollectionsService): void {
  serve(router, COLLECTION_LIST, [requireScope('records')], async (_input, req) => ({ collections: await collections.list(tenantOf(req)) }));
}
