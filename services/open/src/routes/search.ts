import { OPEN_COLLECTION_SEARCH, OPEN_COLLECTION_SEARCH_BY_QUERY, OPEN_SEARCH, OPEN_SEARCH_BY_QUERY } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';

export function searchRoutes(router: Router, open: OpenService): void {
  serve(router, OPEN_SEARCH, ({ body }, req) => open.search(body, req.id));

  serve(router, OPEN_SEARCH_BY_QUERY, ({ query: q }, req) =>
    open.search({ query: q.q, collection: q.collection, sort: q.sort, limit: q.limit, offset: q.offset }, req.id),
  );

  serve(router, OPEN_COLLECTION_SEARCH, ({ params, body }, req) => open.search({ ...body, collection: params.collection }, req.id));

  serve(router, OPEN_COLLECTION_SEARCH_BY_QUERY, ({ params, query: q }, req) =>
    open.search({ query: q.q, collection: params.collection, sort: q.sort, limit: q.limit, offset: q.offset }, req.id),
  );
}
