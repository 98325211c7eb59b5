import { collectionName } from '@trove/contracts';
import { parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { SearchService } from '../search-service';
import { aggregateBody } from './aggregate';
import { filtersOf, searchBody, send } from './search';

/** Where other services (the Open API, MCP) search the shared public index; the gateway never forwards /internal. */
export const PUBLIC_SEARCH_PATH = '/internal/public/search';
export const PUBLIC_AGGREGATE_PATH = '/internal/public/aggregate';

/** As private search and aggregation, with the collection optional and Open's default page of 10. */
const publicSearchBody = searchBody.extend({ collection: collectionName.optional(), limit: searchBody.shape.limit.removeDefault().default(10) });
const publicAggregateBody = aggregateBody.extend({ collection: collectionName.optional() });

export function internalPublicRoutes(router: Router, search: SearchService): void {
  router.post(PUBLIC_SEARCH_PATH, async (req, res) => {
    const body = parseInput(publicSearchBody, req.body ?? {}, 'body');
    const filters = filtersOf(body.filters);
    // Neither query nor filters browses the public index (by name): the Open API's `q` defaults to empty, and its
    // collection schema samples records this way.
    const scope = { kind: 'public' as const, collection: body.collection };
    send(res, await search.search({ scope, query: body.query, filters, sort: body.sort, limit: body.limit, offset: body.offset, format: body.format }));
  });

  router.post(PUBLIC_AGGREGATE_PATH, async (req, res) => {
    const body = parseInput(publicAggregateBody, req.body ?? {}, 'body');
    const scope = { kind: 'public' as const, collection: body.collection };
    res.json(await search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats }));
  });
}
