import type { estypes } from '@elastic/elasticsearch';

/**
 * The Elasticsearch layout. Three indexes per prefix:
 * - `<prefix>-records`: every tenant's documents (and tombstones of removed ones), routed by tenant. A tenant,
 *   collection and generation is one logical read model inside it; searches select the active generation with a
 *   terms lookup on the generations index, so a swap needs no rewrite of the documents.
 * - `<prefix>-public`: exactly the searchable public documents of every tenant, same mapping.
 * - `<prefix>-generations`: one small document per tenant and collection holding its active generation.
 */
export interface Indexes {
  records: string;
  public: string;
  generations: string;
}

export function indexesOf(prefix: string): Indexes {
  // Index names must be lower case.
  const p = prefix.toLowerCase();
  return { records: `${p}-records`, public: `${p}-public`, generations: `${p}-generations` };
}

/** Above this many characters a value is kept for display but not indexed as a keyword (Lucene's term limit is 32 KB). */
export const KEYWORD_LIMIT = 8191;

/**
 * Shared by the records and the public index: the public index holds copies of records documents. Text is split into
 * runs of letters and digits and lower-cased, the words the PostgreSQL engine and query classification use
 * (classify.ts queryWords), so "M8x40" or "3.5" are the same words in both engines. Names sort lower-cased in code point
 * order, like PostgreSQL's lower(name) collate "C".
 */
export const documentSettings: estypes.IndicesIndexSettings = {
  analysis: {
    tokenizer: { words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' } },
    analyzer: { words: { type: 'custom', tokenizer: 'words', filter: ['lowercase'] } },
    normalizer: { sort_key: { type: 'custom', filter: ['lowercase'] } },
  },
};

/**
 * Fixed fields only: tenant data goes into `data`, a nested key/value array, so no tenant field ever adds a mapping.
 * `collection_data` keeps the original object for display and is not indexed at all.
 *
 * Text fields score with the boolean similarity: a matching word scores its field's weight, nothing more. BM25's
 * term statistics are per shard across every tenant in the index, so they would let other tenants' data reorder a
 * tenant's results (and leak a little about it), and make the field weights unpredictable; like PostgreSQL's
 * ts_rank_cd (which uses no document frequencies), ranking here follows which words match in which fields.
 */
export const documentMappings: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    tenant_id: { type: 'keyword' },
    record_id: { type: 'keyword' },
    version: { type: 'long' },
    /** A removed record: kept (not deleted) so its external version stops older deliveries from bringing it back. */
    tombstone: { type: 'boolean' },
    collection: { type: 'keyword' },
    record_type: { type: 'keyword' },
    generation: { type: 'long' },
    name: {
      type: 'text',
      analyzer: 'words',
      similarity: 'boolean',
      fields: { sort: { type: 'keyword', normalizer: 'sort_key', ignore_above: KEYWORD_LIMIT } },
    },
    description: { type: 'text', analyzer: 'words', similarity: 'boolean' },
    /**
     * Shown, not searched (see TEXT_FIELDS in queries.ts). Still indexed: an existing index cannot change a field's
     * `index` setting in place.
     */
    description_llm: { type: 'text', analyzer: 'words', similarity: 'boolean' },
    /** The name as query words read it (see source.ts): an exact or prefix name match ranks first. */
    name_key: { type: 'keyword', ignore_above: KEYWORD_LIMIT },
    /** The text values of collection_data, for full-text matching. */
    data_text: { type: 'text', analyzer: 'words', similarity: 'boolean' },
    /** Normalised identifiers: exact match as keywords, and words of the full-text match. */
    identifiers: {
      type: 'keyword',
      ignore_above: KEYWORD_LIMIT,
      fields: { text: { type: 'text', analyzer: 'words', similarity: 'boolean' } },
    },
    source_type: { type: 'keyword' },
    status: { type: 'keyword' },
    visibility: { type: 'keyword' },
    updated_at: { type: 'date' },
    /** The vocabulary of the document's collection when it is the older one: given back, never searched. */
    vocabulary: { type: 'keyword', index: false, doc_values: false },
    collection_data: { type: 'object', enabled: false },
    data: {
      type: 'nested',
      dynamic: 'strict',
      properties: {
        /** The collection_data key. */
        k: { type: 'keyword' },
        /** The value as JSON: equality, and group-by values with their stored type (10 and "10" are two groups). */
        j: { type: 'keyword', ignore_above: KEYWORD_LIMIT },
        /** String values: text ranges (ISO dates) and sort. */
        s: { type: 'keyword', ignore_above: KEYWORD_LIMIT },
        /** Numeric values: ranges, sort, stats. */
        n: { type: 'double' },
        /** Boolean values: sort. */
        b: { type: 'boolean' },
        /**
         * The value's words (nested objects' too), for a collection naming its searchable fields (queries.ts). A
         * document written before this field existed has none until it is written again: data_text still finds it
         * while the collection searches every field.
         */
        t: { type: 'text', analyzer: 'words', similarity: 'boolean' },
      },
    },
  },
};

export const generationMappings: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    tenant_id: { type: 'keyword' },
    collection: { type: 'keyword' },
    active_generation: { type: 'long' },
  },
};

/**
 * Index templates, one per index, matching exactly that index name. A high priority keeps broad templates of a
 * shared cluster from competing for these names.
 */
export function indexTemplates(indexes: Indexes): estypes.IndicesPutIndexTemplateRequest[] {
  const meta = { managed_by: 'trove-search-engine' };
  return [
    {
      name: indexes.records,
      index_patterns: [indexes.records],
      priority: 500,
      _meta: meta,
      template: { settings: documentSettings, mappings: documentMappings },
    },
    {
      name: indexes.public,
      index_patterns: [indexes.public],
      priority: 500,
      _meta: meta,
      template: { settings: documentSettings, mappings: documentMappings },
    },
    {
      name: indexes.generations,
      index_patterns: [indexes.generations],
      priority: 500,
      _meta: meta,
      template: { mappings: generationMappings },
    },
  ];
}
