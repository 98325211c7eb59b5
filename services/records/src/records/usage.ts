import type { OutgoingEvent } from '@trove/bus';
import { TOPICS, type RecordDto, type UsageEvent } from '@trove/contracts';

/**
 * The usage.events fact of one write transaction that created records (none when it created none): how many, of
 * which record types. One per transaction, never one per record, so a bulk upsert of thousands adds one outbox row.
 */
export function recordsCreated(created: RecordDto[], at: Date): OutgoingEvent | undefined {
  if (created.length === 0) return undefined;
  const tenantId = created[0]!.tenant_id;
  const payload: UsageEvent = {
    kind: 'records',
    tenant_id: tenantId,
    record_types: [...new Set(created.map((r) => r.record_type))].sort(),
    created: created.length,
    at: at.toISOString(),
  };
  return { topic: TOPICS.usageEvents, key: tenantId, payload };
}
