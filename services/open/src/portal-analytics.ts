import { usagePeriodOf, type PortalAnalytics } from '@trove/contracts';
import type { SearchCounter } from './search-counter';
import type { PublicIndex } from './public-index';

/**
 * The portal's analytics of a tenant for this month: how often Open searches surfaced each collection (open's own
 * counter) beside its record and public counts (records'). A collection searched this month but since emptied is
 * listed with no records and last_updated null, so the collections add up to total_open_searches.
 */
export async function portalAnalytics(
  deps: { upstreams: PublicIndex; counter: SearchCounter },
  tenantId: string,
  requestId?: string,
  now = new Date(),
): Promise<PortalAnalytics> {
  const period = usagePeriodOf(now);
  const [stats, searches] = await Promise.all([deps.upstreams.collectionStats(tenantId, requestId), deps.counter.countsOfPeriod(tenantId, period)]);
  const searched = new Map(searches.map((s) => [s.collection, s.searches]));
  const collections: PortalAnalytics['collections'] = stats.collections.map((c) => ({
    collection: c.collection,
    record_count: c.record_count,
    public_count: c.public_count,
    open_searches: searched.get(c.collection) ?? 0,
    last_updated: c.last_updated,
  }));
  const listed = new Set(collections.map((c) => c.collection));
  for (const s of searches) {
    if (!listed.has(s.collection)) collections.push({ collection: s.collection, record_count: 0, public_count: 0, open_searches: s.searches, last_updated: null });
  }
  collections.sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : 0));
  return { tenant_id: tenantId, period, total_open_searches: searches.reduce((n, s) => n + s.searches, 0), collections };
}
