import type { DeliveredEvent, EventBus, Subscription } from '@trove/bus';
import { TOPICS, usageEvent, type UsageEvent } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { ProvenStep } from '../domain/quickstart';
import type { Db } from '../store/schema';
import { applyUsage, forgetSeenEvents, type SearchCount, type StepProof } from '../store/usage';

/**
 * Auth keeps the portal's usage counters and quickstart progress for now; the billing service (issue 15) takes
 * ownership of usage.events and the counters when it exists, and this consumer goes with it.
 */
export const USAGE_GROUP = 'auth.usage';

/** Event ids of search counts are kept this long to recognise a redelivery, then forgotten. */
const SEEN_RETENTION_DAYS = 40;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The quickstart step each kind of usage fact proves; API calls alone prove none. */
const PROVES: Record<UsageEvent['kind'], ProvenStep | undefined> = {
  records: 'define_schema',
  upload: 'upload_data',
  searches: 'first_search',
  requests: undefined,
};

/**
 * Adds search counts to the tenant's period counter and records the first proof of each quickstart step, one
 * transaction per batch. Idempotent under redelivery (store/usage.ts, applyUsage).
 */
export function usageEventsHandler(db: Db, logger: Logger) {
  let prunedAt = 0;
  return async (events: DeliveredEvent[]): Promise<void> => {
    const counts: SearchCount[] = [];
    const proofs: StepProof[] = [];
    for (const event of events) {
      const parsed = usageEvent.safeParse(event.payload);
      if (!parsed.success || !UUID.test(parsed.data.tenant_id)) {
        // A malformed event would fail the same way on every delivery; skipping it keeps the group moving.
        logger.warn({ offset: event.offset, key: event.key, issues: parsed.error?.issues }, 'skipping malformed usage.events event');
        continue;
      }
      const fact = parsed.data;
      const tenantId = fact.tenant_id.toLowerCase();
      if (fact.kind === 'searches') counts.push({ eventId: fact.event_id, tenantId, period: fact.period, count: fact.count });
      const step = PROVES[fact.kind];
      if (step) proofs.push({ tenantId, step, at: fact.at });
    }
    await applyUsage(db, counts, proofs);
    if (Date.now() - prunedAt > PRUNE_INTERVAL_MS) {
      prunedAt = Date.now();
      await forgetSeenEvents(db, SEEN_RETENTION_DAYS);
    }
  };
}

export function subscribeUsageEvents(bus: EventBus, db: Db, logger: Logger): Promise<Subscription> {
  return bus.subscribe({ group: USAGE_GROUP, topics: [TOPICS.usageEvents], handler: usageEventsHandler(db, logger) });
}
