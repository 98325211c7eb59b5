import { parsedPayloads, type DeliveredEvent, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, usageFactOf, type UsageEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { ProvenStep } from '../domain/quickstart';
import type { Db } from '../store/schema';
import { applyProofs, type StepProof } from '../store/quickstart';

/** Auth reads usage.events for the portal's quickstart only; the billing service counts usage from them. */
export const USAGE_GROUP = 'auth.usage';

/** The quickstart step each kind of usage fact proves; API calls alone prove none. */
const PROVES: Record<UsageEvent['kind'], ProvenStep | undefined> = {
  records: 'define_schema',
  upload: 'upload_data',
  searches: 'first_search',
  requests: undefined,
};

/** Records the first proof of each quickstart step, one statement per batch; a redelivered proof changes nothing. */
export function usageEventsHandler(db: Db, logger: Logger) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    const proofs: StepProof[] = [];
    for (const fact of parsedPayloads(events, usageFactOf, logger)) {
      const step = PROVES[fact.kind];
      if (step) proofs.push({ tenantId: fact.tenant_id, step, at: fact.at });
    }
    await applyProofs(db, proofs);
  };
}

export function subscribeUsageEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: USAGE_GROUP, topics: [TOPICS.usageEvents], handler: usageEventsHandler(db, logger) });
}
