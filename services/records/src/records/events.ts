import { TOPICS, type RecordChangedEvent, type RecordDto, type VocabularyName } from '@trove/contracts';
import type { OutgoingEvent } from '@trove/bus';

export type ChangeKind = 'upserted' | 'archived' | 'visibility';

/** What an event says of the record's collection, as read in the write's transaction. */
export interface CollectionState {
  activeGeneration: number;
  vocabulary: VocabularyName;
}

/**
 * The records.changed event announcing one record's new version, keyed by record id so its versions stay ordered.
 * `pipeline` marks an upsert for the older pipeline's jobs (contracts, recordChangedEvent).
 */
export function recordChanged(kind: ChangeKind, record: RecordDto, collection: CollectionState, pipeline = false): OutgoingEvent {
  const base = {
    tenant_id: record.tenant_id,
    record_id: record.id,
    version: record.version,
    record,
    active_generation: collection.activeGeneration,
    ...(collection.vocabulary === 'older' && { collection_vocabulary: 'older' as const }),
  };
  const payload: RecordChangedEvent =
    kind === 'visibility' ? { kind, ...base, visibility: record.visibility } : kind === 'upserted' && pipeline ? { kind, ...base, pipeline } : { kind, ...base };
  return { topic: TOPICS.recordsChanged, key: record.id, payload };
}
