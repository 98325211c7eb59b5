import { z } from 'zod';
import { collectionName } from '@trove/contracts';
import { parseInput, requireScope, tenantOf } from '@trove/platform';
import type { Router } from '../http';
import type { SearchService } from '../search-service';
import { filtersOf, filtersSchema } from './search';

const field = z.string().trim().min(1).max(200);

export const aggregateBody = z.strictObject({
  collection: collectionName,
  filters: filtersSchema,
  group_by: field.optional(),
  stats: z.array(field).max(5).default([]),
});

/** Private aggregation (beyond the specification, shaped like the Open API's): total, top 50 groups, numeric stats. */
export function aggregateRoutes(router: Router, search: SearchService): void {
  router.post('/aggregate', requireScope('search'), async (req, res) => {
    const body = parseInput(aggregateBody, req.body ?? {}, 'body');
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection: body.collection };
    res.json(await search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats }));
  });
}
