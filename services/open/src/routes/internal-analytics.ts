import { z } from 'zod';
import { OPEN_SEARCH_COUNTS_PATH, usagePeriod, usagePeriodOf, type OpenSearchCounts } from '@trove/contracts';
import { fields, parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { SearchCounter } from '../search-counter';

const countsQuery = z.object({
  tenant_id: fields.uuid,
  /** A calendar month, YYYY-MM (UTC); the current month by default. */
  period: usagePeriod.optional(),
});

/**
 * How often Open searches surfaced each of a tenant's collections in a month: `{tenant_id, period,
 * total_open_searches, collections: [{collection, open_searches}]}`, counting what is still gathered in memory.
 */
export function internalAnalyticsRoutes(router: Router, counter: SearchCounter): void {
  router.get(OPEN_SEARCH_COUNTS_PATH, async (req, res) => {
    const q = parseInput(countsQuery, req.query, 'query');
    const period = q.period ?? usagePeriodOf(new Date());
    const rows = await counter.countsOfPeriod(q.tenant_id, period);
    const answer: OpenSearchCounts = {
      tenant_id: q.tenant_id,
      period,
      total_open_searches: rows.reduce((n, r) => n + r.searches, 0),
      collections: rows.map((r) => ({ collection: r.collection, open_searches: r.searches })),
    };
    res.json(answer);
  });
}
