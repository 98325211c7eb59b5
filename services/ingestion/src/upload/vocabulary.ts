import type { z } from 'zod';
import type { ingestTargetParams, uploadTargetParams } from '@trove/contracts';
import type { UploadOrigin } from '../ingest/ingestor';
import type { MappingOptions } from '../ingest/record-mapping';

/**
 * The two vocabularies of the upload routes (docs/behaviour/older-vocabulary.md): the current one
 * (`/upload/{collection}/{record_type}`, `collection_data`, upload results) and the older one
 * (`/ingest/{vertical}/{entity_type}`, `vertical_data`, ingestion results). Both write through the same ingestor; only
 * names and answers differ. Each route is registered from its declaration in @trove/contracts (api/ingestion.ts), whose
 * path parameters are the vocabulary's. The older vocabulary's own answers are in older/vocabulary.ts.
 */
export interface Vocabulary {
  /** Where the routes live, for messages that point to a sibling route. */
  root: '/upload/{collection}/{record_type}' | '/ingest/{vertical}/{entity_type}';
  mapping: Pick<MappingOptions, 'dataField'>;
  /**
   * How its uploads write: the older vocabulary's records go through the pipeline's jobs
   * (docs/behaviour/older-vocabulary.md).
   */
  origin: UploadOrigin;
  /** The answer of an upload taken asynchronously (`Prefer: respond-async`): its id, in the vocabulary's name, processing. */
  accepted(uploadId: string): { status: 'processing' };
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
  accepted: (uploadId) => ({ upload_id: uploadId, status: 'processing' }),
};
