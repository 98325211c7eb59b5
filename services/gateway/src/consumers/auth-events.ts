import { randomUUID } from 'node:crypto';
import type { EventBus, Subscription } from '@trove/bus';
import { TOPICS, authEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { KeyVerifier } from '../key-verifier';

/**
 * Drops a key from this gateway's cache the moment auth revokes or rotates it. Every gateway replica holds its own
 * cache, so each subscribes in a group of its own (ephemeral: new events only, forgotten when it stops).
 */
export function subscribeToKeyChanges(bus: EventBus, keys: KeyVerifier, logger: Logger): Promise<Subscription> {
  return bus.subscribe({
    group: `gateway-key-cache-${randomUUID()}`,
    topics: [TOPICS.authEvents],
    ephemeral: true,
    handler: async (events) => {
      for (const event of events) {
        const parsed = authEvent.safeParse(event.payload);
        if (!parsed.success) {
          logger.warn({ offset: event.offset }, 'ignoring an auth event that does not match the contract');
          continue;
        }
        keys.drop(parsed.data.key_id);
      }
    },
  });
}
