import type { Logger } from '@trove/platform';
import type { EventBus, OutgoingEvent } from './port';

export interface CountTallyOptions {
  bus: Pick<EventBus, 'publish'>;
  logger: Logger;
  intervalMs: number;
  /** The event one tenant's count of one period leaves as; a new event id each time, so it is counted once. */
  event: (count: { tenantId: string; period: string; count: number }) => OutgoingEvent;
  /** What is counted, for the log ("search usage"). */
  what: string;
}

/**
 * Counts things per tenant and period (a usage month) without touching a request's path beyond a map increment:
 * counts gather in memory and leave as one event per tenant and period every `intervalMs`, on `flush()`, and on
 * stop. A failed publish keeps its counts for the next flush; a crash loses at most one interval. Search tallies
 * searches with it, the gateway API calls.
 */
export class CountTally {
  private pending = new Map<string, { tenantId: string; period: string; count: number }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: CountTallyOptions) {}

  /** One more of the tenant's in the period. */
  count(tenantId: string, period: string): void {
    const key = `${period}\u0000${tenantId}`;
    const entry = this.pending.get(key);
    if (entry) entry.count += 1;
    else this.pending.set(key, { tenantId, period, count: 1 });
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Publishes what has gathered; resolves once it is stored (or logged as failed and kept). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.opts.bus.publish([...batch.values()].map((entry) => this.opts.event(entry)));
      } catch (err) {
        this.opts.logger.warn({ err }, `${this.opts.what} not published; kept for the next flush`);
        for (const [key, entry] of batch) {
          const kept = this.pending.get(key);
          if (kept) kept.count += entry.count;
          else this.pending.set(key, entry);
        }
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
