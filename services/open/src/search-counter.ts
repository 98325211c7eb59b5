import { Tally, type Logger } from '@trove/platform';
import { addSearchCounts, searchCountsOf } from './store/search-counts';
import type { Db } from './store/schema';

/**
 * Counts Open searches per tenant collection and day without slowing the answer: counts gather in memory and are
 * added to `open.search_counts` in one statement every `intervalMs`, on `flush()`, and on stop. A failed write keeps
 * its counts for the next flush; what a crash loses is at most one interval of analytics, never an answer.
 */
export class SearchCounter {
  private readonly tally: Tally<{ day: string; tenant_id: string; collection: string; count: number }>;

  constructor(private readonly opts: { db: Db; logger: Logger; intervalMs: number }) {
    this.tally = new Tally({
      intervalMs: opts.intervalMs,
      logger: opts.logger,
      what: 'open search counts',
      write: (entries) => addSearchCounts(opts.db, entries.map(({ count, ...at }) => ({ ...at, searches: count }))),
    });
  }

  /** One search that surfaced these collections, each owned by a tenant; a collection counts once per search. */
  count(collections: Array<{ tenant_id: string; collection: string }>, at = new Date()): void {
    const day = at.toISOString().slice(0, 10);
    const seen = new Set<string>();
    for (const c of collections) {
      const key = `${day}\u0000${c.tenant_id}\u0000${c.collection}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.tally.add(key, () => ({ day, tenant_id: c.tenant_id, collection: c.collection }));
    }
  }

  start(): void {
    this.tally.start();
  }

  /** Writes what has gathered; resolves once it is stored (or logged as failed and kept). */
  flush(): Promise<void> {
    return this.tally.flush();
  }

  /** A tenant's searches per collection between two days (inclusive), counting what is still gathered in memory. */
  async countsOf(tenantId: string, from: string, to: string): Promise<Array<{ collection: string; searches: number }>> {
    await this.flush();
    return searchCountsOf(this.opts.db, tenantId, from, to);
  }

  /** A tenant's searches per collection in a month (YYYY-MM, UTC), counting what is still gathered in memory. */
  countsOfPeriod(tenantId: string, period: string): Promise<Array<{ collection: string; searches: number }>> {
    const [year, month] = period.split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    return this.countsOf(tenantId, `${period}-01`, last);
  }

  stop(): Promise<void> {
    return this.tally.stop();
  }
}
