/**
 * The search engine port. Two adapters, PostgreSQL full-text (embedded default) and Elasticsearch (scaled), with
 * identical observable behaviour, proven by one contract suite (engine.contract.ts). The search service never asks
 * which adapter it has.
 *
 * The engine keeps two kinds of index:
 * - private read models: every searchable record of a tenant, collection and generation;
 * - one shared public index: exactly the searchable records whose visibility is public, across every tenant.
 * A record is searchable when its status is active and its generation is the collection's active generation.
 */

import type { AggregateAnswer, CollectionSettings, FacetAnswer, Filter, RankingExplanation } from '@trove/contracts';

// Filters, aggregate answers and facets are the contract between search and its callers; the engine takes and gives
// them as they are.
export type { AggregateAnswer as AggregateResult, FacetAnswer, FieldStats, Filter, Scalar } from '@trove/contracts';

/** One record as the engine stores it: the fields a search result shows plus what filtering and scoping need. */
export interface IndexDocument {
  tenant_id: string;
  record_id: string;
  /** The record's version; the engine never lets an older version replace a newer one. */
  version: number;
  collection: string;
  record_type: string;
  generation: number;
  name: string;
  description: string | null;
  description_llm: string;
  collection_data: Record<string, unknown>;
  source_type: string;
  status: 'active' | 'archived' | 'draft';
  visibility: 'private' | 'public';
  updated_at: string;
  /**
   * `older` for a record of a collection first created through the older vocabulary (its search results also carry
   * the older names); absent otherwise. Stored and given back, never searched.
   */
  vocabulary?: 'older';
}

export type IndexChange =
  /**
   * The record's state as of `version`. `active_generation` is the collection's active generation as the writer
   * knew it; the engine keeps the highest it has seen per collection (swaps only ever raise it).
   */
  | { op: 'upsert'; document: IndexDocument; active_generation: number }
  /** The record is gone for good (hard delete). Later deliveries of older versions must not bring it back. */
  | { op: 'remove'; tenant_id: string; record_id: string; version: number };

export interface ApplyOutcome {
  record_id: string;
  version: number;
  /** indexed also for a change ignored because the engine already holds this or a newer version. */
  status: 'indexed' | 'failed';
  error?: string;
}

export interface Sort {
  /** `name`, `updated_at`, `record_type`, or a collection_data field. A field no document has leaves the default order. */
  field: string;
  direction: 'asc' | 'desc';
}

export type QueryType = 'identifier' | 'keyword' | 'natural_language';

/** Where a query looks: one tenant's collection (active generation only), or the shared public index. */
export type SearchScope =
  | { kind: 'private'; tenant_id: string; collection: string }
  | { kind: 'public'; collection?: string };

export interface SearchQuery {
  scope: SearchScope;
  /**
   * What to match. Absent: filters only (every searchable document matching the filters, default order name then
   * record_id). `identifier`: exact match on the normalised identifiers (see identifiers.ts), score 1.0.
   * `keyword`: every term must match, the last one as a prefix. `natural_language`: any term matches, ranked.
   * Full text searches name, description, identifiers and collection_data text, never the generated description
   * (its template words would match every record). Every word also matches within its typo budget (typos.ts), below
   * the word as typed. Ranked hits: a name equal to the query first (0.9..0.99), then names starting with it
   * (0.8..0.89), then the rest (at most 0.8) by how many words match, as typed, in the name and together; ties by
   * name, then record_id. When a keyword or natural-language query matches nothing, the engine tries a typo-tolerant
   * fallback on names (trigram similarity in PostgreSQL, fuzziness in Elasticsearch) before answering empty.
   */
  text?: { type: QueryType; query: string; identifiers: string[] };
  /** Combined with AND. */
  filters: Filter[];
  sort?: Sort;
  limit: number;
  offset: number;
  /**
   * How the total is counted (SearchResult.total_estimate): by default exactly up to COUNTED_EXACTLY matches and
   * possibly estimated above, which is what a page needs; true counts exactly up to EXACT_TOTAL_MAX, which costs a
   * scan of that many matches on a large result.
   */
  exact_total?: boolean;
  /** Each hit's matches highlighted (SearchHit.highlights) between these tags: highlight.ts, the same in both engines. */
  highlight?: { pre_tag: string; post_tag: string };
  /**
   * The values of these fields counted over every match (SearchResult.facets), the `limit` most frequent of each
   * (ties by value), as aggregate() groups them, with numeric stats where the field holds numbers.
   */
  facets?: { fields: string[]; limit: number };
  /**
   * The collection's search settings (terms.ts): its stop words left out of the query, its synonyms matched as the
   * words they stand for, its typo tolerance. Absent: the defaults.
   */
  settings?: CollectionSettings;
  /** Each hit says why it ranked where it did (SearchHit.ranking; explain.ts). */
  explain?: boolean;
}

/** Matches a total is always counted exactly up to (Meilisearch's estimatedTotalHits and Elasticsearch's track_total_hits estimate above their own). */
export const COUNTED_EXACTLY = 1_000;
/** Matches counted exactly when a search asks for an exact total (exact_total). */
export const EXACT_TOTAL_MAX = 10_000;

export interface SearchHit {
  /** 0..1, higher is better; 1.0 for an exact identifier match. Filter-only hits score 1.0. */
  score: number;
  document: IndexDocument;
  /** With SearchQuery.highlight: the fields holding a match, their text with each match tagged (highlight.ts). */
  highlights?: Record<string, string>;
  /** With SearchQuery.explain: how it was found, what of the query it holds where, and the score's parts. */
  ranking?: RankingExplanation;
}

export interface SearchResult {
  hits: SearchHit[];
  /**
   * Matches in total: exact up to COUNTED_EXACTLY (EXACT_TOTAL_MAX with exact_total); above that an engine may
   * estimate (counting costs a scan of every match), within about 10 % and never more than the searchable documents
   * of the scope. An engine that knows the exact count cheaply answers it.
   */
  total_estimate: number;
  /** True when total_estimate is an estimate, false when it is the exact count. */
  total_is_estimate: boolean;
  /** True when the typo-tolerant fallback produced the hits. */
  fuzzy: boolean;
  /** With SearchQuery.facets: one per field asked for, in that order, over the matches total_estimate counts. */
  facets?: Record<string, FacetAnswer>;
}

export interface AggregateQuery {
  scope: SearchScope;
  filters: Filter[];
  /** A collection_data field (or `record_type`, `collection`); answers its top 50 values by count. */
  group_by?: string;
  /** At most 5 collection_data fields; only numeric values count. */
  stats?: string[];
}

/** A collection of the public index, grouped by name across tenants; see SearchEngine.publicCollections. */
export interface CollectionGroup {
  collection: string;
  count: number;
  /** Highest count first, ties by name. */
  record_types: Array<{ value: string; count: number }>;
}

export interface SearchEngine {
  readonly kind: 'postgres' | 'elasticsearch';
  /** Creates tables, indexes or index templates; idempotent. */
  init(): Promise<void>;
  /**
   * Applies a batch of changes, in order, idempotently. Returns only after the batch is durably persisted and
   * visible to every later search (read-your-writes). A failing item is reported as failed without failing the rest.
   */
  apply(changes: IndexChange[]): Promise<ApplyOutcome[]>;
  /**
   * Makes `generation` the collection's active generation: its documents become searchable (and public ones enter
   * the public index), documents of older generations are removed.
   */
  swapGeneration(tenant_id: string, collection: string, generation: number): Promise<void>;
  search(query: SearchQuery): Promise<SearchResult>;
  aggregate(query: AggregateQuery): Promise<AggregateAnswer>;
  /**
   * The collections of the public index whose documents match the filters, grouped by name across tenants: the
   * AGGREGATE_GROUP_LIMIT largest (ties by name, in code point order), each with its largest record types.
   */
  publicCollections(filters: Filter[]): Promise<CollectionGroup[]>;
  /** Rejects when the engine cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
