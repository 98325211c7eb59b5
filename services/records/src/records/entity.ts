import type { ClaimStatus, RecordDto } from '@trove/contracts';

/**
 * How complete an entity's data is, 0..1 (docs/behaviour/older-vocabulary.md): the share of its fields that are filled, over
 * the name, the description and each top-level field of its data; data without any field counts as one empty
 * field. Rounded to two decimals.
 */
export function dataQualityScore(record: Pick<RecordDto, 'name' | 'description' | 'collection_data'>): number {
  const data = Object.values(record.collection_data);
  const fields = [record.name, record.description, ...(data.length > 0 ? data : [undefined])];
  const filled = fields.filter(isFilled).length;
  return Math.round((filled / fields.length) * 100) / 100;
}

/** A value that says something: not null, not blank text, not an empty list or object. */
function isFilled(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * What an entity (docs/behaviour/older-vocabulary.md) has besides a record's fields under their older names: the older
 * API's claim_status (unclaimed until a client sets it) and data_quality_score.
 */
export function entityExtras(record: RecordDto): { claim_status: ClaimStatus; data_quality_score: number } {
  return { claim_status: record.claim_status ?? 'unclaimed', data_quality_score: dataQualityScore(record) };
}
