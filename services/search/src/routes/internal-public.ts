import { z } from 'zod';
import { collectionName } from '@trove/contracts';
import { parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { SearchService } from '../search-service';
import { filtersOf, filtersSchema, MAX_OFFSET, send } from './search';

/** Where other services (the Open API, MCP) search the shared public index; the gateway never forwards /internal. */
export const PUBLIC_SEARCH_PATH = '/internal/public/search';
export const PUBLIC_AGGREGATE_PATH = '/internal/public/aggregate';

const publicSearchBody = z.strictObject({
  collection: collectionName.optional(),
  query: z.string().max(500).trim().min(1).optional(),
  limit: z.int().min(1).max(100).default(10),
  offset: z.int().min(0).max(MAX_OFFSET).default(0),
  sort: z.string().trim().min(1).max(200).optional(),
  format: z.enum(['json', 'compact', 'yaml']).default('json'),
  filters: filtersSchema,
});

const publicAggregateBody = z.strictObject({
  collection: collectionName.optional(),
  filters: filtersSchema,
  group_by: z.string().trim().min(1).max(200).optional(),
  stats: z.array(z.string().trim().min(1).max(200)).max(5).default([]),
});

export function internalPublicRoutes(router: Router, search: SearchService): void {
  router.post(PUBLIC_SEARCH_PATH, async (req, res) => {
    const body = parseInput(publicSearchBody, req.body ?? {}, 'body');
    const filters = filtersOf(body.filters);
    // Neither query nor filters browses the public index (by name): the Open API's `q` defaults to empty, and its
    // collection schema samples records this way.
    const scope = { kind: 'public' as const, collection: body.collection };
    // The response cache keys a request without its scope, and every public scope shares one namespace: the
    // collection must be part of the request itself, or one collection's answer would be served for another.
    const request = { scope, collection: body.collection, query: body.query, filters, sort: body.sort, limit: body.limit, offset: body.offset, format: body.format };
    send(res, await search.search(request));
  });

  router.post(PUBLIC_AGGREGATE_PATH, async (req, res) => {
    const body = parseInput(publicAggregateBody, req.body ?? {}, 'body');
    const scope = { kind: 'public' as const, collection: body.collection };
    const request = { scope, collection: body.collection, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats };
    res.json(await search.aggregate(request));
  });
}
