import { randomUUID } from 'node:crypto';
import type { EventBus, Subscription } from '@trove/bus';
import { TOPICS, billingEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { KeyVerifier } from '../key-verifier';
import type { TenantPlans } from '../tenant-plans';

/**
 * Applies a tenant's plan change at once: keeps it to apply over every identity of the tenant, and drops the
 * tenant's cached keys so their next verification reads the plan from auth. Every gateway replica holds its own
 * state, so each subscribes in a group of its own (ephemeral, forgotten when it stops). It starts with the changes of
 * the last `tokenTtlSeconds`: a portal token signed before one of them may still be valid and names the plan of its
 * sign-in, so a gateway started after the change must apply it too; a change older than that is in every valid token.
 */
export function subscribeToPlanChanges(bus: EventBus, plans: TenantPlans, keys: KeyVerifier, logger: Logger, tokenTtlSeconds: number): Promise<Subscription> {
  return bus.subscribe({
    group: `gateway-plans-${randomUUID()}`,
    topics: [TOPICS.billingEvents],
    ephemeral: true,
    // A minute more, for clocks and the time between signing and publishing.
    since: new Date(Date.now() - (tokenTtlSeconds + 60) * 1000),
    handler: async (events) => {
      for (const event of events) {
        const parsed = billingEvent.safeParse(event.payload);
        if (!parsed.success) {
          logger.warn({ offset: event.offset }, 'ignoring a billing event that does not match the contract');
          continue;
        }
        if (plans.apply(parsed.data)) keys.dropTenant(parsed.data.tenant_id);
      }
    },
  });
}
