import { OPEN_COLLECTIONS, OPEN_COLLECTION_SCHEMA } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';

export function collectionRoutes(router: Router, open: OpenService): void {
  serve(router, OPEN_COLLECTIONS, ({ query }, req) => open.collections(query.q || undefined, req.id));

  serve(router, OPEN_COLLECTION_SCHEMA, ({ params }, req) => open.schema(params.collection, req.id));
}
