import type { Logger } from '@trove/platform';
import type { DeliveredEvent, EventBus, Subscription } from './port';

/**
 * The payloads of a batch that `parse` reads (a contract's reader, such as usageFactOf or planChangeOf). A payload it
 * cannot read breaks the contract and would fail the same way on every delivery: it is logged and skipped, so the
 * group keeps moving.
 */
export function parsedPayloads<T>(events: readonly DeliveredEvent[], parse: (payload: unknown) => T | undefined, logger: Logger): T[] {
  const parsed: T[] = [];
  for (const event of events) {
    const value = parse(event.payload);
    if (value === undefined) logger.warn({ offset: event.offset, key: event.key }, `skipping malformed ${event.topic} event`);
    else parsed.push(value);
  }
  return parsed;
}

export interface ApplyEachOptions<T> {
  group: string;
  topic: string;
  /** The contract's reader of one payload (undefined when it breaks the contract: logged and skipped). */
  parse: (payload: unknown) => T | undefined;
  /** Applies one payload, in the order they were published. */
  apply: (value: T) => Promise<void>;
  logger: Logger;
}

/** Subscribes a group to one topic and applies each payload it can read, one after the other (parsedPayloads). */
export function applyEach<T>(bus: Pick<EventBus, 'subscribe'>, opts: ApplyEachOptions<T>): Promise<Subscription> {
  return bus.subscribe({
    group: opts.group,
    topics: [opts.topic],
    handler: async (events) => {
      for (const value of parsedPayloads(events, opts.parse, opts.logger)) await opts.apply(value);
    },
  });
}
