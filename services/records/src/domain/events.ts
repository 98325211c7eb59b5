import { TOPICS, type RecordChangedEvent, type RecordDto } from '@trove/contracts';
import type { OutgoingEvent } from '@trove/bus';

export type ChangeKind = 'upserted' | 'archived' | 'visibility';

/**
 * The records.changed event announcing one record's new version, keyed by record id so its versions stay ordered.
 * `activeGeneration` is the collection's active generation in the same transaction.
 */
export function recordChanged(kind: ChangeKind, record: RecordDto, activeGeneration: number): OutgoingEvent {
  const base = { tenant_id: record.tenant_id, record_id: record.id, version: record.version, record, active_generation: activeGeneration };
  const payload: RecordChangedEvent = kind === 'visibility' ? { kind, ...base, visibility: record.visibility } : { kind, ...base };
  return { topic: TOPICS.recordsChanged, key: record.id, payload };
}
