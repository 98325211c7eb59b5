import type { Logger } from '@trove/platform';
import type { DeliveredEvent } from './port';

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
