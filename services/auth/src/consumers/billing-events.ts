import { parsedPayloads, type DeliveredEvent, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, planChangeOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { Db } from '../store/schema';
import { applyPlanChange } from '../store/tenants';

export const BILLING_GROUP = 'auth.billing';

/** Keeps auth.tenants.plan as billing last set it, so key verification answers the new plan at once. */
export function billingEventsHandler(db: Db, logger: Logger) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    for (const change of parsedPayloads(events, planChangeOf, logger)) await applyPlanChange(db, change);
  };
}

export function subscribeBillingEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: BILLING_GROUP, topics: [TOPICS.billingEvents], handler: billingEventsHandler(db, logger) });
}
