import { AGGREGATE } from '@trove/contracts';
import { requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { SearchService } from '../search-service';
import { filtersOf } from './search';

/** Private aggregation, shaped like the Open API's (docs/behaviour/search.md): total, top 50 groups, numeric stats. */
export function aggregateRoutes(router: Router, search: SearchService): void {
  serve(router, AGGREGATE, [requireScope('search')], async ({ body }, req) => {
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection: body.collection };
    return search.aggregate({ scope, filters: filtersOf(body.filters), group_by: body.group_by, stats: body.stats });
  });
}
