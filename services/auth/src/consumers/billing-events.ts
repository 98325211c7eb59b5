import { applyEach, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, planChangeOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { Db } from '../store/schema';
import { applyPlanChange } from '../store/tenants';

/** Keeps auth.tenants.plan as billing last set it, so key verification answers the new plan at once. */
export function subscribeBillingEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return applyEach(bus, { group: 'auth.billing', topic: TOPICS.billingEvents, parse: planChangeOf, apply: (change) => applyPlanChange(db, change), logger });
}
