import {
  PUBLIC_AGGREGATE_PATH,
  PUBLIC_COLLECTIONS_PATH,
  PUBLIC_SEARCH_PATH,
  publicAggregateRequest,
  publicCollectionsRequest,
  publicSearchRequest,
  type AggregateAnswer,
  type PublicCollectionsAnswer,
} from '@trove/contracts';
import { parseInput, type Router } from '@trove/platform';
import type { SearchService } from '../search-service';
import { filtersOf, send } from './search';

export function internalPublicRoutes(router: Router, search: SearchService): void {
  router.post(PUBLIC_SEARCH_PATH, async (req, res) => {
    const body = parseInput(publicSearchRequest, req.body ?? {}, 'body');
    const filters = filtersOf(body.filters);
    // Neither query nor filters browses the public index (by name): the Open API's `q` defaults to empty, and its
    // collection schema samples records this way.
    const scope = { kind: 'public' as const, collection: body.collection };
    send(res, await search.search({ scope, query: body.query, filters, sort: body.sort, limit: body.limit, offset: body.offset, format: body.format }));
  });

  router.post(PUBLIC_AGGREGATE_PATH, async (req, res) => {
    const body = parseInput(publicAggregateRequest, req.body ?? {}, 'body');
    const scope = { kind: 'public' as const, collection: body.collection };
    const answer: AggregateAnswer = await search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats });
    res.json(answer);
  });

  router.post(PUBLIC_COLLECTIONS_PATH, async (req, res) => {
    parseInput(publicCollectionsRequest, req.body ?? {}, 'body');
    const answer: PublicCollectionsAnswer = { collections: await search.publicCollections() };
    res.json(answer);
  });
}
