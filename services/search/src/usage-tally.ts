import { randomUUID } from 'node:crypto';
import type { EventBus, OutgoingEvent } from '@trove/bus';
import { TOPICS, usagePeriodOf, type UsageEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';

/**
 * Counts private searches per tenant and month without touching the answer's path beyond a map increment: counts
 * gather in memory and leave as one usage.events `searches` fact per tenant and period every `intervalMs`, on
 * `flush()`, and on stop. A failed publish keeps its counts for the next flush; a crash loses at most one interval.
 * Each fact carries a new event id, so a consumer counts it once however often it is delivered.
 */
export class SearchTally {
  private pending = new Map<string, { tenantId: string; period: string; count: number }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: { bus: Pick<EventBus, 'publish'>; logger: Logger; intervalMs: number }) {}

  /** One private search of the tenant. */
  count(tenantId: string, at = new Date()): void {
    const period = usagePeriodOf(at);
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
      const at = new Date().toISOString();
      const events: OutgoingEvent[] = [...batch.values()].map(({ tenantId, period, count }) => {
        const payload: UsageEvent = { kind: 'searches', event_id: randomUUID(), tenant_id: tenantId, period, count, at };
        return { topic: TOPICS.usageEvents, key: tenantId, payload };
      });
      try {
        await this.opts.bus.publish(events);
      } catch (err) {
        this.opts.logger.warn({ err }, 'search usage not published; kept for the next flush');
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
