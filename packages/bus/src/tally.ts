import { Tally, type Logger } from '@trove/platform';
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
 * Counts things per tenant and period (a usage month) in a Tally: they leave as one event per tenant and period every
 * `intervalMs`, on `flush()`, and on stop. Search tallies searches with it, the gateway API calls.
 */
export class CountTally {
  private readonly tally: Tally<{ tenantId: string; period: string; count: number }>;

  constructor(opts: CountTallyOptions) {
    this.tally = new Tally({
      intervalMs: opts.intervalMs,
      logger: opts.logger,
      what: opts.what,
      write: (entries) => opts.bus.publish(entries.map((entry) => opts.event(entry))),
    });
  }

  /** One more of the tenant's in the period. */
  count(tenantId: string, period: string): void {
    this.tally.add(`${period}\u0000${tenantId}`, () => ({ tenantId, period }));
  }

  start(): void {
    this.tally.start();
  }

  /** Publishes what has gathered; resolves once it is published (or logged as failed and kept). */
  flush(): Promise<void> {
    return this.tally.flush();
  }

  stop(): Promise<void> {
    return this.tally.stop();
  }
}
