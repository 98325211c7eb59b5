import type { RecordDto } from '@trove/contracts';

/**
 * A record in the older vocabulary (spec, Entity): `vertical`, `entity_type`, `vertical_data` and `embedding_status`
 * in place of collection, record_type, collection_data and indexing_status, plus the two fields the older API had.
 * Trove has no claiming of entities, so every entity is `unclaimed`, and it computes no quality score, so
 * `data_quality_score` is null rather than a made-up number.
 */
export interface EntityDto extends Omit<RecordDto, 'collection' | 'record_type' | 'collection_data' | 'indexing_status'> {
  vertical: string;
  entity_type: string;
  vertical_data: Record<string, unknown>;
  embedding_status: RecordDto['indexing_status'];
  claim_status: 'unclaimed';
  data_quality_score: null;
}

export function toEntity(record: RecordDto): EntityDto {
  const { collection, record_type, collection_data, indexing_status, ...rest } = record;
  return {
    ...rest,
    vertical: collection,
    entity_type: record_type,
    vertical_data: collection_data,
    embedding_status: indexing_status,
    claim_status: 'unclaimed',
    data_quality_score: null,
  };
}
