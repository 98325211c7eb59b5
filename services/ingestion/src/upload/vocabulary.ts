import type { z } from 'zod';
import type { ingestTargetParams, uploadTargetParams } from '@trove/contracts';
import type { MappingOptions } from '../domain/record-mapping';
import type { UploadOrigin, UploadResult } from '../ingestor';
import type { DeadLetter } from '../domain/tally';
import type { UploadStatus } from '../store/schema';

/**
 * The two vocabularies of the upload routes (spec, first section): the current one (`/upload/{collection}/
 * {record_type}`, `collection_data`, upload results) and the older one (`/ingest/{vertical}/{entity_type}`,
 * `vertical_data`, ingestion results). Both write through the same ingestor; only names and answers differ. Each
 * route is registered from its declaration in @trove/contracts (api/ingestion.ts), whose path parameters are the
 * vocabulary's.
 */
export interface Vocabulary {
  /** Where the routes live, for messages that point to a sibling route. */
  root: '/upload/{collection}/{record_type}' | '/ingest/{vertical}/{entity_type}';
  mapping: Pick<MappingOptions, 'dataField'>;
  /** How its uploads write: the older vocabulary's records go through the pipeline's jobs (spec, Older pipeline). */
  origin: UploadOrigin;
}

/** Where an upload's records go: the collection and the record type. */
export interface UploadPlace {
  collection: string;
  record_type: string;
}

/** The upload's place from its path parameters, parsed by its declaration, in either vocabulary's words. */
export function uploadPlace(params: z.output<typeof uploadTargetParams> | z.output<typeof ingestTargetParams>): UploadPlace {
  return 'vertical' in params ? { collection: params.vertical, record_type: params.entity_type } : { collection: params.collection, record_type: params.record_type };
}

export const CURRENT: Vocabulary = {
  root: '/upload/{collection}/{record_type}',
  mapping: { dataField: 'collection_data' },
  origin: { vocabulary: 'current', pipeline: false },
};

export const OLDER: Vocabulary = {
  root: '/ingest/{vertical}/{entity_type}',
  mapping: { dataField: 'vertical_data' },
  origin: { vocabulary: 'older', pipeline: true },
};

/** The ingestion status values of the older vocabulary: `completed` where the current one says `complete`. */
export function olderStatus(status: UploadStatus): 'processing' | 'completed' | 'failed' {
  return status === 'complete' ? 'completed' : status;
}

/**
 * The older ingestion result of an upload: written records are `record_count` and their ids `entity_ids` (in
 * submission order), duplicates `duplicate_count`. The batch answer says `processing`, as the older API did.
 */
export function olderIngestionResult(result: UploadResult, entityIds: string[]) {
  return {
    ingestion_id: result.upload_id,
    status: 'processing' as const,
    record_count: result.summary.accepted,
    duplicate_count: result.summary.dedup_skipped,
    entity_ids: entityIds,
  };
}

/** A dead letter as the older vocabulary shows it: the record's explicit data under `vertical_data`. */
export function olderDeadLetter(letter: DeadLetter): DeadLetter {
  const data = letter.record_data;
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('collection_data' in data) || 'vertical_data' in data) {
    return letter;
  }
  const { collection_data, ...rest } = data as Record<string, unknown>;
  return { ...letter, record_data: { ...rest, vertical_data: collection_data } };
}
