import { randomUUID } from 'node:crypto';
import type { UsageEvent } from './events';
import { TOPICS } from './topics';

/** The usage.events kinds that carry a tally's count of a period. */
export type UsageCountKind = Extract<UsageEvent, { count: number }>['kind'];

/**
 * The usage.events message of one tenant's tallied count of a period (search's searches, the gateway's API calls),
 * keyed by tenant, with a new event id so a consumer adds it once however often it is delivered.
 */
export function usageCountMessage(kind: UsageCountKind, c: { tenantId: string; period: string; count: number }): { topic: string; key: string; payload: UsageEvent } {
  const payload: UsageEvent = { kind, event_id: randomUUID(), tenant_id: c.tenantId, period: c.period, count: c.count, at: new Date().toISOString() };
  return { topic: TOPICS.usageEvents, key: c.tenantId, payload };
}
