import { applyEach, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, planChangeOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { applyPlanChange } from '../store/connectors';
import type { Db } from '../store/schema';

/** Keeps each tenant's plan as billing last set it, for scheduled pulls (a pull on demand carries the caller's). */
export function subscribeBillingEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return applyEach(bus, { group: 'connector.billing', topic: TOPICS.billingEvents, parse: planChangeOf, apply: (change) => applyPlanChange(db, change), logger });
}
