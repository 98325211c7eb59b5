import type { DeliveredEvent, EventBus, Subscription } from '@trove/bus';
import { TOPICS, billingEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { applyPlanChange } from '../store/connectors';
import type { Db } from '../store/schema';

export const BILLING_GROUP = 'connector.billing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Keeps each tenant's plan as billing last set it, for scheduled pulls (a pull on demand carries the caller's). */
export function billingEventsHandler(db: Db, logger: Logger) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    for (const event of events) {
      const parsed = billingEvent.safeParse(event.payload);
      if (!parsed.success || !UUID.test(parsed.data.tenant_id)) {
        // A malformed event would fail the same way on every delivery; skipping it keeps the group moving.
        logger.warn({ offset: event.offset, key: event.key, issues: parsed.error?.issues }, 'skipping malformed billing.events event');
        continue;
      }
      const change = parsed.data;
      await applyPlanChange(db, { tenantId: change.tenant_id.toLowerCase(), plan: change.plan, changedAt: new Date(change.changed_at) });
    }
  };
}

export function subscribeBillingEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: BILLING_GROUP, topics: [TOPICS.billingEvents], handler: billingEventsHandler(db, logger) });
}
