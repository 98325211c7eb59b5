import { randomUUID } from 'node:crypto';
import type { EventBus, Subscription } from '@trove/bus';
import { TOPICS, billingEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { KeyVerifier } from '../key-verifier';
import type { TenantPlans } from '../tenant-plans';

/**
 * Applies a tenant's plan change at once: keeps it to apply over every identity of the tenant, and drops the
 * tenant's cached keys so their next verification reads the plan from auth. Every gateway replica holds its own
 * state, so each subscribes in a group of its own (ephemeral: new events only, forgotten when it stops).
 */
export function subscribeToPlanChanges(bus: EventBus, plans: TenantPlans, keys: KeyVerifier, logger: Logger): Promise<Subscription> {
  return bus.subscribe({
    group: `gateway-plans-${randomUUID()}`,
    topics: [TOPICS.billingEvents],
    ephemeral: true,
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
