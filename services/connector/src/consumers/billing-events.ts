import { parsedPayloads, type DeliveredEvent, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, planChangeOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { applyPlanChange } from '../store/connectors';
import type { Db } from '../store/schema';

export const BILLING_GROUP = 'connector.billing';

/** Keeps each tenant's plan as billing last set it, for scheduled pulls (a pull on demand carries the caller's). */
export function billingEventsHandler(db: Db, logger: Logger) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    for (const change of parsedPayloads(events, planChangeOf, logger)) await applyPlanChange(db, change);
  };
}

export function subscribeBillingEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: BILLING_GROUP, topics: [TOPICS.billingEvents], handler: billingEventsHandler(db, logger) });
}
