import { z } from 'zod';
import { parseInput } from '@trove/platform';
import type { MappingOptions } from '../domain/record-mapping';
import type { UploadOrigin, UploadResult } from '../ingestor';
import type { DeadLetter } from '../domain/tally';
import { targetParams } from './target';

/**
 * The two vocabularies of the upload routes (spec, first section): the current one (`/upload/{collection}/
 * {record_type}`, `collection_data`, upload results) and the older one (`/ingest/{vertical}/{entity_type}`,
 * `vertical_data`, ingestion results). Both write through the same ingestor; only names and answers differ. Each
 * route file writes its paths out in full, so a search for a path finds its handler.
 */
export interface Vocabulary {
  /** Where the routes live, for messages that point to a sibling route. */
  root: '/upload/{collection}/{record_type}' | '/ingest/{vertical}/{entity_type}';
  /** The upload's collection and record type from the path parameters (422 naming this vocabulary's fields). */
  target(params: unknown): { collection: string; record_type: string };
  mapping: Pick<MappingOptions, 'dataField'>;
  /** How its uploads write: the older vocabulary's records go through the pipeline's jobs (spec, Older pipeline). */
  origin: UploadOrigin;
}

export const CURRENT: Vocabulary = {
  root: '/upload/{collection}/{record_type}',
  target: (params) => parseInput(targetParams, params, 'path'),
  mapping: { dataField: 'collection_data' },
  origin: { vocabulary: 'current', pipeline: false },
};

const olderParams = z.object({ vertical: targetParams.shape.collection, entity_type: targetParams.shape.record_type });

export const OLDER: Vocabulary = {
  root: '/ingest/{vertical}/{entity_type}',
  target: (params) => {
    const { vertical, entity_type } = parseInput(olderParams, params, 'path');
    return { collection: vertical, record_type: entity_type };
  },
  mapping: { dataField: 'vertical_data' },
  origin: { vocabulary: 'older', pipeline: true },
};

/** The ingestion status values of the older vocabulary: `completed` where the current one says `complete`. */
export function olderStatus(status: string): string {
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
