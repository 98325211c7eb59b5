import type { UploadResult } from '../ingest/ingestor';
import type { DeadLetter } from '../ingest/tally';
import type { UploadStatus } from '../schema';
import type { Vocabulary } from '../upload/vocabulary';

/**
 * The older vocabulary of the upload routes (`/ingest/{vertical}/{entity_type}`, `vertical_data`, ingestion results;
 * upload/vocabulary.ts tells the two apart): where its uploads go and how its answers name what the current one's do.
 */
export const OLDER: Vocabulary = {
  root: '/ingest/{vertical}/{entity_type}',
  mapping: { dataField: 'vertical_data' },
  origin: { vocabulary: 'older', pipeline: true },
  accepted: (uploadId) => ({ ingestion_id: uploadId, status: 'processing' }),
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
