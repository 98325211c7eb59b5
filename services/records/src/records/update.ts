import type { ClaimStatus } from '@trove/contracts';
import { describeRecord } from './description';

/** The fields of a record a client may change (PATCH /records/{id} and PATCH /records/bulk). */
export interface RecordUpdate {
  name?: string;
  description?: string | null;
  record_type?: string;
  /** Merged into the stored object at the top level; a key given as null is removed. */
  collection_data?: Record<string, unknown>;
  visibility?: 'private' | 'public';
  status?: 'active' | 'draft';
  source_name?: string | null;
  source_url?: string | null;
  /** The older vocabulary's field (PATCH /entities/{id}); the current routes do not take it. */
  claim_status?: ClaimStatus;
}

/** The record's editable state, before or after an update. */
export interface EditableRecord {
  name: string;
  description: string | null;
  description_llm: string;
  collection: string;
  record_type: string;
  collection_data: Record<string, unknown>;
  visibility: 'private' | 'public';
  status: 'active' | 'archived' | 'draft';
  source_name: string | null;
  source_url: string | null;
  claim_status: ClaimStatus | null;
}

/** Top-level merge: keys given replace the stored ones, keys given as null are removed, the others stay. */
export function mergeCollectionData(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameJson(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && sameJson(ao[k], bo[k]));
}

/**
 * Applies an update to a record. Returns the new state with its description rebuilt, or undefined when the update
 * changes nothing (so an idempotent retry neither bumps the version nor triggers re-indexing).
 */
export function applyUpdate<R extends EditableRecord>(record: R, update: RecordUpdate): R | undefined {
  const next: R = {
    ...record,
    ...(update.name !== undefined && { name: update.name }),
    ...(update.description !== undefined && { description: update.description }),
    ...(update.record_type !== undefined && { record_type: update.record_type }),
    ...(update.visibility !== undefined && { visibility: update.visibility }),
    ...(update.status !== undefined && { status: update.status }),
    ...(update.source_name !== undefined && { source_name: update.source_name }),
    ...(update.source_url !== undefined && { source_url: update.source_url }),
    ...(update.claim_status !== undefined && { claim_status: update.claim_status }),
    collection_data: update.collection_data ? mergeCollectionData(record.collection_data, update.collection_data) : record.collection_data,
  };
  const fields: Array<keyof EditableRecord> = [
    'name',
    'description',
    'record_type',
    'collection_data',
    'visibility',
    'status',
    'source_name',
    'source_url',
    'claim_status',
  ];
  if (fields.every((f) => sameJson(record[f], next[f]))) return undefined;
  return { ...next, description_llm: describeRecord(next) };
}
