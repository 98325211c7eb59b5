import { OPEN_SEARCH_COUNTS, usagePeriodOf } from '@trove/contracts';
import { serve, type Router } from '@trove/platform';
import type { SearchCounter } from '../search-counter';

/** OPEN_SEARCH_COUNTS: a tenant's Open search counts per collection for a month. */
export function internalAnalyticsRoutes(router: Router, counter: SearchCounter): void {
  serve(router, OPEN_SEARCH_COUNTS, async ({ query }) => {
    const period = query.period ?? usagePeriodOf(new Date());
    const rows = await counter.countsOfPeriod(query.tenant_id, period);
    return {
      tenant_id: query.tenant_id,
      period,
      total_open_searches: rows.reduce((n, r) => n + r.searches, 0),
      collections: rows.map((r) => ({ collection: r.collection, open_searches: r.searches })),
    };
  });
}
