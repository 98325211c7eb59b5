/**
 * The older vocabulary (entity/vertical/ingest) maps one-to-one onto the current one (record/collection/upload).
 * This table is the only place the mapping lives; older routes translate their input and output through it.
 */
export const OLDER_TO_CURRENT: Readonly<Record<string, string>> = {
  entity_id: 'record_id',
  entity: 'record',
  vertical: 'collection',
  entity_type: 'record_type',
  vertical_data: 'collection_data',
  embedding_status: 'indexing_status',
  ingestion_id: 'upload_id',
  entity_ids: 'record_ids',
};

export const CURRENT_TO_OLDER: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(OLDER_TO_CURRENT).map(([older, current]) => [current, older]),
);

function renameKeys(value: unknown, table: Readonly<Record<string, string>>, deep: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, table, deep));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Tenant data inside collection_data/vertical_data keeps its own keys.
    const isData = k === 'collection_data' || k === 'vertical_data';
    out[table[k] ?? k] = deep && !isData ? renameKeys(v, table, deep) : v;
  }
  return out;
}

/** Renames older-vocabulary keys of a request body or query to the current ones. */
export function toCurrentVocabulary<T = unknown>(value: unknown): T {
  return renameKeys(value, OLDER_TO_CURRENT, true) as T;
}

/** Renames current-vocabulary keys of a response to the older ones. */
export function toOlderVocabulary<T = unknown>(value: unknown): T {
  return renameKeys(value, CURRENT_TO_OLDER, true) as T;
}
