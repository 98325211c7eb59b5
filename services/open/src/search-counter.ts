import type { Logger } from '@trove/platform';
import { addSearchCounts, searchCountsOf, type CountIncrement } from './store/search-counts';
import type { Db } from './store/schema';

/**
 * Counts Open searches per tenant collection and day without slowing the answer: counts gather in memory and are
 * added to `open.search_counts` in one statement every `intervalMs`, on `flush()`, and on stop. A failed write keeps
 * its counts for the next flush; what a crash loses is at most one interval of analytics, never an answer.
 */
export class SearchCounter {
  private pending = new Map<string, CountIncrement>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: { db: Db; logger: Logger; intervalMs: number }) {}

  /** One search that surfaced these collections, each owned by a tenant; a collection counts once per search. */
  count(collections: Array<{ tenant_id: string; collection: string }>, at = new Date()): void {
    const day = at.toISOString().slice(0, 10);
    const seen = new Set<string>();
    for (const c of collections) {
      const key = `${day}\u0000${c.tenant_id}\u0000${c.collection}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = this.pending.get(key);
      if (entry) entry.searches += 1;
      else this.pending.set(key, { day, tenant_id: c.tenant_id, collection: c.collection, searches: 1 });
    }
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Writes what has gathered; resolves once it is stored (or logged as failed and kept). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await addSearchCounts(this.opts.db, [...batch.values()]);
      } catch (err) {
        this.opts.logger.warn({ err }, 'open search counts not stored; kept for the next flush');
        for (const [key, inc] of batch) {
          const entry = this.pending.get(key);
          if (entry) entry.searches += inc.searches;
          else this.pending.set(key, inc);
        }
      }
    });
    return this.flushing;
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

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
