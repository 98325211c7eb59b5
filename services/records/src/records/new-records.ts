import type { ClaimStatus } from '@trove/contracts';
import type { CollectionSettings } from '../collections/store';
import type { Visibility } from '../visibility/service';
import { describeRecord } from './description';
import type { NewRecord, NewRecordsShared, RecordRow } from './store';

/** Where the records of one write go and where they came from, as the write states it. */
interface NewRecordsTarget {
  tenant_id: string;
  collection: string;
  record_type: string;
  status: 'active' | 'draft';
  /** The collection's default when absent. */
  visibility?: Visibility;
  /** The collection's active generation when absent. */
  generation?: number;
  source_name?: string | null;
  source_type: RecordRow['source_type'];
  claim_status?: ClaimStatus;
}

/** What a new record has of its own; optional fields absent are stored as null. */
interface NewRecordContent {
  id: string;
  name: string;
  collection_data: Record<string, unknown>;
  content_hash: string;
  description?: string | null;
  source_id?: string | null;
  source_url?: string | null;
}

/**
 * The rows insertRecords writes for new records, whichever route creates them (POST /records and its twins, the bulk
 * upsert): the collection's settings complete the target (its default visibility, its active generation) and each
 * record is described.
 */
export function newRecordRows(
  target: NewRecordsTarget,
  settings: CollectionSettings,
  contents: NewRecordContent[],
): { shared: NewRecordsShared; records: NewRecord[] } {
  const shared: NewRecordsShared = {
    tenant_id: target.tenant_id,
    collection: target.collection,
    record_type: target.record_type,
    status: target.status,
    visibility: target.visibility ?? settings.default_visibility,
    generation: target.generation ?? settings.active_generation,
    source_name: target.source_name ?? null,
    source_type: target.source_type,
    claim_status: target.claim_status ?? null,
  };
  const described = (c: NewRecordContent) =>
    describeRecord({ name: c.name, record_type: target.record_type, collection: target.collection, collection_data: c.collection_data });
  const records = contents.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description ?? null,
    description_llm: described(c),
    collection_data: c.collection_data,
    content_hash: c.content_hash,
    source_id: c.source_id ?? null,
    source_url: c.source_url ?? null,
  }));
  return { shared, records };
}

/** Another writer created a live record with one of the source ids since this one looked. */
export function isSourceIdTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && e.constraint === 'records_source_live';
}
