import { z } from 'zod';
import { MAX_OFFSET, PUBLIC_PAGE_DEFAULT, PUBLIC_PAGE_MAX, queryInteger, searchField, searchFilters, searchText } from '@trove/contracts';
import { parseInput, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';
import { collection, qParam } from './request-schemas';

const bodyFields = {
  query: searchText.optional(),
  filters: searchFilters.default({}),
  sort: searchField.optional(),
  limit: z.int().min(1).max(PUBLIC_PAGE_MAX).default(PUBLIC_PAGE_DEFAULT),
  offset: z.int().min(0).max(MAX_OFFSET).default(0),
};

/** POST /search; without query and filters it lists every public record (by name). */
const searchBody = z.strictObject({ ...bodyFields, collection: collection.optional() });
/** POST /search/{collection}: the collection is the path's. */
const collectionSearchBody = z.strictObject(bodyFields);

const queryFields = {
  q: qParam,
  sort: searchField.optional(),
  limit: queryInteger(1, PUBLIC_PAGE_MAX, PUBLIC_PAGE_DEFAULT),
  offset: queryInteger(0, MAX_OFFSET, 0),
};
/** Unknown query parameters are ignored, as caches and proxies add their own. */
const searchQuery = z.object({ ...queryFields, collection: collection.optional() });
const collectionSearchQuery = z.object(queryFields);
const collectionParams = z.object({ collection });

export function searchRoutes(router: Router, open: OpenService): void {
  router.post('/search', async (req, res) => {
    const body = parseInput(searchBody, req.body ?? {}, 'body');
    res.json(await open.search(body, req.id));
  });

  router.get('/search', async (req, res) => {
    const q = parseInput(searchQuery, req.query, 'query');
    res.json(await open.search({ query: q.q, collection: q.collection, sort: q.sort, limit: q.limit, offset: q.offset }, req.id));
  });

  router.post('/search/:collection', async (req, res) => {
    const params = parseInput(collectionParams, req.params, 'path');
    const body = parseInput(collectionSearchBody, req.body ?? {}, 'body');
    res.json(await open.search({ ...body, collection: params.collection }, req.id));
  });

  router.get('/search/:collection', async (req, res) => {
    const params = parseInput(collectionParams, req.params, 'path');
    const q = parseInput(collectionSearchQuery, req.query, 'query');
    res.json(await open.search({ query: q.q, collection: params.collection, sort: q.sort, limit: q.limit, offset: q.offset }, req.id));
  });
}
