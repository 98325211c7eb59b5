import { aggregateRequest, type AggregateAnswer } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { SearchService } from '../search-service';
import { filtersOf } from './search';

/** Private aggregation (beyond the specification, shaped like the Open API's): total, top 50 groups, numeric stats. */
export function aggregateRoutes(router: Router, search: SearchService): void {
  router.post('/aggregate', requireScope('search'), async (req, res) => {
    const body = parseInput(aggregateRequest, req.body ?? {}, 'body');
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection: body.collection };
    const answer: AggregateAnswer = await search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats });
    res.json(answer);
  });
}
