import { z } from 'zod';
import { collectionName } from '@trove/contracts';
import { ERRORS, parseInput } from '@trove/platform';
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
    if (body.query === undefined && filters.length === 0) {
      throw ERRORS.validation([{ loc: ['body', 'query'], msg: 'Field required when no filters are given', type: 'missing', input: req.body ?? null, ctx: {} }]);
    }
    const scope = { kind: 'public' as const, collection: body.collection };
    send(res, await search.search({ scope, query: body.query, filters, sort: body.sort, limit: body.limit, offset: body.offset, format: body.format }));
  });

  router.post(PUBLIC_AGGREGATE_PATH, async (req, res) => {
    const body = parseInput(publicAggregateBody, req.body ?? {}, 'body');
    const scope = { kind: 'public' as const, collection: body.collection };
    res.json(await search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats }));
  });
}
