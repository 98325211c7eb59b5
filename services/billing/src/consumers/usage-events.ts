import { parsedPayloads, type DeliveredEvent, type EventBus, type Subscription } from '@trove/bus';
import { TOPICS, usageFactOf } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { usageDayOf } from '../domain/usage-days';
import type { Db } from '../store/schema';
import { addUsage, forgetSeenEvents, type UsageCount } from '../store/usage';

export const USAGE_GROUP = 'billing.usage';

/** Event ids of counts are kept this long to recognise a redelivery, then forgotten. */
const SEEN_RETENTION_DAYS = 40;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Adds the search and API-call counts of usage.events to the tenant's period (and searches to their day), one
 * transaction per batch; the other kinds of fact (records, uploads) are the quickstart's, not billed. Idempotent under
 * redelivery (store/usage.ts).
 */
export function usageEventsHandler(db: Db, logger: Logger) {
  let prunedAt = 0;
  return async (events: DeliveredEvent[]): Promise<void> => {
    const counts: UsageCount[] = [];
    for (const fact of parsedPayloads(events, usageFactOf, logger)) {
      if (fact.kind !== 'searches' && fact.kind !== 'requests') continue;
      counts.push({
        eventId: fact.event_id,
        tenantId: fact.tenant_id,
        period: fact.period,
        kind: fact.kind,
        count: fact.count,
        day: usageDayOf(fact.period, fact.at),
      });
    }
    await addUsage(db, counts);
    if (Date.now() - prunedAt > PRUNE_INTERVAL_MS) {
      prunedAt = Date.now();
      await forgetSeenEvents(db, SEEN_RETENTION_DAYS);
    }
  };
}

export function subscribeUsageEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: USAGE_GROUP, topics: [TOPICS.usageEvents], handler: usageEventsHandler(db, logger) });
}
