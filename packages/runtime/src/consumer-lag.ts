import type { EventBus, SubscribeOptions } from '@trove/bus';
import { withinMs } from '@trove/platform';
import { Gauge, type Registry } from 'prom-client';

/** A scrape waits this long for a group's lag at most; a group that does not answer in time is left out of it. */
const LAG_TIMEOUT_MS = 2_000;

/**
 * The service's bus, reporting the consumer lag of every group the service subscribes in its registry:
 * trove_event_consumer_lag{group}, the events on the group's topics it has yet to commit (EventBus.lag: on the embedded
 * log those after its committed position, on Kafka the partitions' high watermarks minus its committed offsets), asked
 * of the bus when scraped. Ephemeral groups (one per process, forgotten when it stops) are left out: their names are
 * made per process, and each would be a series of its own.
 */
export function withConsumerLag(bus: EventBus, registry: Registry): EventBus {
  const groups = new Map<string, string[]>();
  new Gauge({
    name: 'trove_event_consumer_lag',
    help: 'Events a consumer group has yet to commit, by group (read when scraped)',
    labelNames: ['group'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        [...groups].map(async ([group, topics]) => {
          try {
            this.set({ group }, await withinMs(bus.lag(group, topics), LAG_TIMEOUT_MS, `no lag for ${group} within ${LAG_TIMEOUT_MS} ms`));
          } catch {
            // A bus that cannot answer shows no lag rather than an old one; its readiness check reports it down.
          }
        }),
      );
    },
  });
  return new Proxy(bus, {
    get(target, property) {
      if (property === 'subscribe') {
        return (opts: SubscribeOptions) => {
          if (!opts.ephemeral) groups.set(opts.group, [...new Set([...(groups.get(opts.group) ?? []), ...opts.topics])]);
          return target.subscribe(opts);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
