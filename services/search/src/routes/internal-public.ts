import { PUBLIC_AGGREGATE, PUBLIC_COLLECTIONS, PUBLIC_SEARCH } from '@trove/contracts';
import { handle, parseInput, serve, type Router } from '@trove/platform';
import type { SearchService } from '../search-service';
import { bodyOptions, filtersOf, send } from './search';

export function internalPublicRoutes(router: Router, search: SearchService): void {
  // PUBLIC_SEARCH is registered by hand: its answer may be JSON text the response cache holds, sent as it is.
  handle(router, PUBLIC_SEARCH, async (req, res) => {
    const body = parseInput(PUBLIC_SEARCH.body, req.body ?? {}, 'body');
    const filters = filtersOf(body.filters);
    // Neither query nor filters browses the public index (by name): the Open API's `q` defaults to empty, and its
    // collection schema samples records this way.
    const scope = { kind: 'public' as const, collection: body.collection };
    send(res, await search.search({ scope, filters, ...bodyOptions(body) }));
  });

  serve(router, PUBLIC_AGGREGATE, ({ body }) => {
    const scope = { kind: 'public' as const, collection: body.collection };
    return search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats });
  });

  serve(router, PUBLIC_COLLECTIONS, async () => ({ collections: await search.publicCollections() }));
}
