import { z } from 'zod';
import { endpoint } from './endpoint';
import { collectionName, recordSchema } from './records';

/**
 * Why a result ranked where it did (docs/behaviour/search.md, "Why a result ranked where it did"): how it was found,
 * each query term's matches (field, the word as written there, and whether as typed, as a prefix, through a typo or
 * through a synonym), the identifiers and the neighbouring terms found together, and the score's parts: each a share
 * (0..1) and the weight it carries in the score, plus the bonus of a name equal to the query or starting with it.
 */
export const rankingExplanation = z.object({
  matched_by: z.enum(['text', 'identifier', 'filters', 'fallback']),
  terms: z.array(
    z.object({
      term: z.string(),
      matches: z.array(z.object({ field: z.string(), word: z.string(), as: z.enum(['typed', 'prefix', 'typo', 'synonym']) })),
    }),
  ),
  identifiers: z.array(z.object({ field: z.string(), text: z.string(), identifier: z.string() })),
  phrases: z.array(z.string()),
  score: z.object({
    total: z.number(),
    name: z.enum(['equal', 'starts_with', 'other']).optional(),
    name_bonus: z.number().optional(),
    parts: z.record(z.string(), z.object({ share: z.number(), weight: z.number() })),
  }),
});

/**
 * A search result item (docs/behaviour/search.md, "The JSON answer"); private results also carry `description`, Open
 * results do not. The search service answers it, and the Open API and MCP pass it on. A record of a collection first
 * created through the older vocabulary also carries the older names (entity_id, entity_type, vertical, vertical_data).
 */
export const searchResultItem = z.object({
  record_id: z.string(),
  name: z.string(),
  score: z.number(),
  collection: z.string(),
  record_type: z.string(),
  collection_data: z.record(z.string(), z.unknown()),
  description_llm: z.string(),
  description: z.string().nullable(),
  source_type: z.string(),
  updated_at: z.string(),
  entity_id: z.string().optional(),
  entity_type: z.string().optional(),
  vertical: z.string().optional(),
  vertical_data: z.record(z.string(), z.unknown()).optional(),
  /**
   * Only when the search asks for `highlight`: each field holding a match (`name`, `description`,
   * `collection_data.<path>`, array elements by index) to its text, HTML-escaped, with the matched words between the
   * tags; a long text is cut to a window around its first match (docs/behaviour/search.md, "Highlights").
   */
  highlights: z.record(z.string(), z.string()).optional(),
  /** Only when the search asks for `explain`: why the result ranked where it did (rankingExplanation). */
  ranking: rankingExplanation.optional(),
});
export type SearchResultItem = z.infer<typeof searchResultItem>;
export type RankingExplanation = z.infer<typeof rankingExplanation>;

/**
 * What an answer that found nothing says of the collection it searched (docs/behaviour/search.md, "A collection that
 * does not exist"): a search's answer is 200 whatever it found, so these tell "nothing matched" from "no such
 * collection". Absent from an answer with results, from a search of every public collection, and when it could not be
 * told.
 */
export const emptyAnswerFields = {
  /**
   * Present only when the search found nothing: false when the caller has no collection of that name (private search:
   * none of the tenant's active records is in it; the Open API: no public record is), true when it exists and nothing
   * in it matched.
   */
  collection_exists: z.boolean().optional(),
  /** Present only with collection_exists false: what to do next (names are case-sensitive; where collections are listed). */
  hint: z.string().optional(),
};

/** Numeric stats of one field over an aggregation's records: only numeric values count (all null when none). */
const fieldStats = z.object({ count: z.number().int(), min: z.number().nullable(), max: z.number().nullable(), avg: z.number().nullable() });
export type FieldStats = z.infer<typeof fieldStats>;

/** One value of a field and how many records hold it (an aggregation's group, a facet's value). */
const valueCount = z.object({ value: z.union([z.string(), z.number(), z.boolean()]), count: z.number().int() });

/**
 * One facet of a search's answer: the field's most frequent values over every match of the query and filters (not
 * just the page), highest count first, ties by value, as POST /aggregate groups them; `stats` when the field holds
 * numbers among the matches. A field no match holds answers no values.
 */
export const facetAnswer = z.object({
  values: z.array(valueCount),
  stats: fieldStats.optional(),
  /**
   * Only on an estimated facet: counted on a sample of the matches and scaled to the total (above 1,000 matches, as
   * total_estimate may be estimated; exact_total counts them all), stats from the sample (docs/behaviour/search.md).
   */
  estimated: z.literal(true).optional(),
});
export type FacetAnswer = z.infer<typeof facetAnswer>;

/** The JSON answer of a search (private search, and the public search other services call). */
export const searchAnswer = z.object({
  results: z.array(searchResultItem),
  pagination: z.object({ offset: z.number().int(), limit: z.number().int(), has_more: z.boolean() }),
  /** Only when the search asks for `facets`: one per field asked for, in the order asked. */
  facets: z.record(z.string(), facetAnswer).optional(),
  metadata: z.object({
    search_mode: z.enum(['fulltext', 'identifier', 'filtered', 'error']),
    query_type: z.enum(['identifier', 'keyword', 'natural_language']),
    processing_time_ms: z.number(),
    /** Exact up to 1,000 matches (10,000 with exact_total); above, possibly estimated (docs/behaviour/search.md). */
    total_estimate: z.number().int(),
    /** True when total_estimate is an estimate; false when it is the exact count. */
    total_is_estimate: z.boolean(),
    cache_hit: z.boolean(),
    /** True when the query together with the filters found nothing and the filters alone were searched. */
    zero_result_fallback_used: z.boolean(),
    ...emptyAnswerFields,
    timings: z.object({ classify_ms: z.number(), search_ms: z.number(), hydrate_ms: z.number() }),
  }),
});
export type SearchAnswer = z.infer<typeof searchAnswer>;

export type Scalar = string | number | boolean;
export type FilterValue = Scalar | Scalar[];

/** The answer of an aggregation: total, the largest groups (AGGREGATE_GROUP_LIMIT) (ties by value) and numeric stats per field. */
export const aggregateAnswer = z.object({
  total: z.number().int(),
  /** Highest count first, ties by value; values as stored (string, number or boolean). */
  groups: z.array(valueCount),
  stats: z.record(z.string(), fieldStats),
});
export type AggregateAnswer = z.infer<typeof aggregateAnswer>;

/** The most filters one search takes (docs/behaviour/search.md). */
export const MAX_FILTERS = 20;
/** The deepest page a search can reach; deeper paging asks the engine to rank everything before it. */
export const MAX_OFFSET = 10_000;
/** The largest page of private search and of the internal public search. */
export const SEARCH_LIMIT_MAX = 100;
/** The most numeric fields one aggregation computes stats for. */
export const AGGREGATE_STATS_MAX = 5;
/** The most groups an aggregation answers (the largest, ties by value), and the most collections of a listing. */
export const AGGREGATE_GROUP_LIMIT = 50;

const filterScalar = z.union([z.string().max(1_000), z.number(), z.boolean()]);
/** A filter's key: a field name, with an optional operator suffix. */
export const filterKey = z.string().min(1).max(200);
/** A filter's value: one scalar, or a list of up to 100. */
export const filterValue = z.union([filterScalar, z.array(filterScalar).min(1).max(100)]);

/** The filter object as every search and aggregation takes it; its keys' operators are read by parseFilters. */
export const searchFilters = z
  .record(filterKey, filterValue)
  .refine((f) => Object.keys(f).length <= MAX_FILTERS, { error: `At most ${MAX_FILTERS} filters are allowed` });

/** The longest search text, in characters. */
export const SEARCH_TEXT_MAX = 500;
/** Search text: 1-SEARCH_TEXT_MAX characters after trimming. */
export const searchText = z.string().max(SEARCH_TEXT_MAX).trim().min(1);
/** A sort, group or stats field name. */
export const searchField = z.string().trim().min(1).max(200);

/** The most fields one search asks facets of, and the most values a facet answers (FACET_LIMIT_DEFAULT unless asked). */
export const FACETS_MAX = 10;
export const FACET_LIMIT_DEFAULT = 20;
export const FACET_LIMIT_MAX = 100;
/** The tags highlights wrap matches in unless the search names its own. */
export const HIGHLIGHT_TAGS = { pre_tag: '<mark>', post_tag: '</mark>' } as const;
const highlightTag = z.string().min(1).max(100);

/**
 * What a search may add to its answer when asked (docs/behaviour/search.md): highlighted matches in each result,
 * and facets over every match. Private search, the Open API and MCP take them alike.
 */
export const searchExtras = {
  /** true (the default tags, HIGHLIGHT_TAGS) or the tags to wrap each match in. */
  highlight: z
    .union([z.boolean(), z.strictObject({ pre_tag: highlightTag.default(HIGHLIGHT_TAGS.pre_tag), post_tag: highlightTag.default(HIGHLIGHT_TAGS.post_tag) })])
    .optional(),
  /** collection_data fields (or record_type, collection) to count the values of over every match; at most FACETS_MAX. */
  facets: z.array(searchField).max(FACETS_MAX, { error: `At most ${FACETS_MAX} facets are allowed` }).optional(),
  /** Values per facet: FACET_LIMIT_DEFAULT unless asked, at most FACET_LIMIT_MAX. */
  facet_limit: z.int().min(1).max(FACET_LIMIT_MAX).optional(),
  /** Each result says why it ranked where it did (`ranking`). */
  explain: z.boolean().optional(),
};

/** The tags a search's `highlight` asks for, or undefined when it asks for none. */
export function highlightTags(highlight: z.output<typeof searchExtras.highlight>): { pre_tag: string; post_tag: string } | undefined {
  if (highlight === undefined || highlight === false) return undefined;
  return highlight === true ? { ...HIGHLIGHT_TAGS } : highlight;
}

/** The facets a search asks for, each field once in the order first asked, with the values each answers; or undefined. */
export function facetsAsked(facets: string[] | undefined, limit: number | undefined): { fields: string[]; limit: number } | undefined {
  if (!facets || facets.length === 0) return undefined;
  return { fields: [...new Set(facets)], limit: limit ?? FACET_LIMIT_DEFAULT };
}

/** The body of private search (POST /search/{collection}); the collection is the path's. */
export const searchRequest = z.strictObject({
  query: searchText.optional(),
  limit: z.int().min(1).max(SEARCH_LIMIT_MAX).default(20),
  offset: z.int().min(0).max(MAX_OFFSET).default(0),
  sort: searchField.optional(),
  format: z.enum(['json', 'compact', 'yaml']).default('json'),
  filters: searchFilters.default({}),
  /** Count the matches exactly up to 10,000 rather than 1,000 (total_estimate); costs more on a large result. */
  exact_total: z.boolean().default(false),
  ...searchExtras,
});

export type SearchRequestBody = z.output<typeof searchRequest>;

/** The most queries one multi-search takes, and the deepest a federated list pages (offset + limit). */
export const MULTI_SEARCH_MAX = 10;
export const FEDERATION_DEPTH_MAX = 1_000;

/** One query of a multi-search: private search's body (JSON answers only) and the collection it searches. */
export const multiSearchQuery = searchRequest.omit({ format: true }).extend({ collection: collectionName });

/**
 * The body of POST /multi-search: up to MULTI_SEARCH_MAX searches in one request, answered one by one in order, or with
 * `federation` merged into one ranked list paged by its own limit and offset (each query's are not used then).
 */
export const multiSearchRequest = z.strictObject({
  queries: z.array(multiSearchQuery).min(1).max(MULTI_SEARCH_MAX, { error: `At most ${MULTI_SEARCH_MAX} queries are allowed` }),
  federation: z
    .strictObject({ limit: z.int().min(1).max(SEARCH_LIMIT_MAX).default(20), offset: z.int().min(0).default(0) })
    .refine((f) => f.offset + f.limit <= FEDERATION_DEPTH_MAX, { error: `offset + limit must be at most ${FEDERATION_DEPTH_MAX}` })
    .optional(),
});
export type MultiSearchRequest = z.output<typeof multiSearchRequest>;

/** A result of a federated multi-search: a search result, and which query (by its place in `queries`) found it. */
export const federatedItem = searchResultItem.extend({ query_index: z.number().int() });

/** The answer of a federated multi-search: every query's matches in one list, by score, then name, collection and id. */
export const federatedAnswer = z.object({
  results: z.array(federatedItem),
  pagination: z.object({ offset: z.number().int(), limit: z.number().int(), has_more: z.boolean() }),
  metadata: z.object({
    processing_time_ms: z.number(),
    /** The sum of the queries' totals; an estimate when any of theirs is. */
    total_estimate: z.number().int(),
    total_is_estimate: z.boolean(),
    /** Each query's own part, in order: its collection, total and mode, and its facets when it asked for them. */
    queries: z.array(
      z.object({
        collection: z.string(),
        search_mode: searchAnswer.shape.metadata.shape.search_mode,
        total_estimate: z.number().int(),
        total_is_estimate: z.boolean(),
        facets: z.record(z.string(), facetAnswer).optional(),
      }),
    ),
  }),
});
export type FederatedAnswer = z.infer<typeof federatedAnswer>;

/** The answer of POST /multi-search: one search answer per query, in order; or, with federation, one merged list. */
export const multiSearchAnswer = z.union([z.object({ results: z.array(searchAnswer) }), federatedAnswer]);
export type MultiSearchAnswer = z.infer<typeof multiSearchAnswer>;

/** The body of private aggregation (POST /aggregate). */
export const aggregateRequest = z.strictObject({
  collection: collectionName,
  filters: searchFilters.default({}),
  group_by: searchField.optional(),
  stats: z.array(searchField).max(AGGREGATE_STATS_MAX).default([]),
});

/** Open search's page: PUBLIC_PAGE_DEFAULT results unless asked, at most PUBLIC_PAGE_MAX. */
export const PUBLIC_PAGE_DEFAULT = 10;
export const PUBLIC_PAGE_MAX = 50;

/** As private search and aggregation, with the collection optional and Open's default page. */
export const publicSearchRequest = searchRequest.extend({
  collection: collectionName.optional(),
  limit: searchRequest.shape.limit.removeDefault().default(PUBLIC_PAGE_DEFAULT),
});
export type PublicSearchRequest = z.input<typeof publicSearchRequest>;
export const publicAggregateRequest = aggregateRequest.extend({ collection: collectionName.optional() });
export type PublicAggregateRequest = z.input<typeof publicAggregateRequest>;

/**
 * Where other services (the Open API, MCP) search and aggregate the shared public index, across tenants; the gateway
 * never forwards /internal. Neither query nor filters browses the public index by name. A 422 (its filters, its sort)
 * is the client's, passed on as it came.
 */
export const PUBLIC_SEARCH = endpoint({
  service: 'search',
  method: 'POST',
  path: '/internal/public/search',
  summary: 'Searches the shared public index across tenants',
  body: publicSearchRequest,
  answer: searchAnswer,
  refusals: [400, 422],
});

export const PUBLIC_AGGREGATE = endpoint({
  service: 'search',
  method: 'POST',
  path: '/internal/public/aggregate',
  summary: 'Aggregates the shared public index across tenants',
  body: publicAggregateRequest,
  answer: aggregateAnswer,
  refusals: [400, 422],
});

/** One collection of the public index: its public record count and the record types among them, sorted by name. */
const publicCollection = z.object({ collection: z.string(), record_count: z.number().int(), record_types: z.array(z.string()) });
export type PublicCollection = z.infer<typeof publicCollection>;

/**
 * The collections of the shared public index in one call: grouped by name across tenants, the AGGREGATE_GROUP_LIMIT
 * largest (ties by name), each with its record types (the largest, by name).
 */
export const PUBLIC_COLLECTIONS = endpoint({
  service: 'search',
  method: 'POST',
  path: '/internal/public/collections',
  summary: 'The collections of the shared public index, largest first',
  body: z.strictObject({}),
  /** Largest first, ties by name. */
  answer: z.object({ collections: z.array(publicCollection) }),
});

/** One page of Open search results, or one lookup (PUBLIC_RECORDS and PUBLIC_VISIBLE alike). */
export const PUBLIC_RECORDS_MAX_IDS = 100;
const publicIds = z.strictObject({ ids: z.array(z.guid()).max(PUBLIC_RECORDS_MAX_IDS) });

/**
 * Where the Open API checks visibility when it loads records: the full records among the ids that are public, active
 * and of the active generation, in the order asked. Any valid internal identity may ask; what it answers is public.
 */
export const PUBLIC_RECORDS = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/public',
  summary: 'The public records among the given ids, in the order asked',
  body: publicIds,
  answer: z.object({ records: z.array(recordSchema) }),
});

/**
 * Where the Open API checks which search hits anyone may see right now, without loading them: the ids among those
 * asked that are public, active and of the active generation, each with its tenant, in the order asked.
 */
export const PUBLIC_VISIBLE = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/public/visible',
  summary: 'Which of the given ids are public now, each with its tenant',
  body: publicIds,
  answer: z.object({ visible: z.array(z.object({ id: z.string(), tenant_id: z.string() })) }),
});

export type FilterOp = 'eq' | 'in' | 'gte' | 'lte' | 'gt' | 'lt';

/** A filter on one collection_data field. `in` takes an array; range operators take a number (or an ISO date string). */
export interface Filter {
  field: string;
  op: FilterOp;
  value: Scalar | Scalar[];
  /**
   * `record_type`: the filter is on the record's type, not on a collection_data field (the older vocabulary's
   * `entity_type` filter; eq and in only, values compared as text).
   */
  on?: 'record_type';
}

/** The older vocabulary's search filter on the record's type (docs/behaviour/older-vocabulary.md, "Older search"). */
export const RECORD_TYPE_FILTER = 'entity_type';

/**
 * Filters as search applies them: a RECORD_TYPE_FILTER equality is on the record's type; any other operator on it is
 * an issue (a type has no range).
 */
export function withRecordTypeFilters(filters: Filter[]): { filters: Filter[]; issues: FilterIssue[] } {
  const out: Filter[] = [];
  const issues: FilterIssue[] = [];
  for (const f of filters) {
    if (f.field !== RECORD_TYPE_FILTER) out.push(f);
    else if (f.op === 'eq' || f.op === 'in') out.push({ ...f, on: 'record_type' });
    else issues.push({ key: `${f.field}${SUFFIX_OF[f.op]}`, problem: 'not_a_bound', msg: `${RECORD_TYPE_FILTER} takes one value or a list of values, not a range`, type: 'value_error', input: f.value });
  }
  return { filters: out, issues };
}

/** Why a filter cannot be applied. */
export type FilterProblem = 'no_field' | 'no_value' | 'not_a_bound';

/** A filter that cannot be applied, said the way a 422 detail entry says it. */
export interface FilterIssue {
  key: string;
  problem: FilterProblem;
  msg: string;
  type: string;
  input: unknown;
}

const SUFFIXES: Array<[suffix: string, op: FilterOp]> = [
  ['_min', 'gte'],
  ['_max', 'lte'],
  ['_gt', 'gt'],
  ['_lt', 'lt'],
  ['_in', 'in'],
];

const RANGE_OPS = new Set<FilterOp>(['gte', 'lte', 'gt', 'lt']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads a search's filter object into filters (docs/behaviour/search.md, "Filters"). The key's suffix names the
 * operator (`_min` >=, `_max` <=, `_gt` >, `_lt` <, `_in` any of); without one, a comma-separated string or an array
 * means any of, anything else equality. Ranges take numbers (or numeric strings, or ISO dates). A field literally named
 * `size_min` is read as a range on `size`: the suffixes win.
 */
export function parseFilters(filters: Record<string, FilterValue>): { filters: Filter[]; issues: FilterIssue[] } {
  const out: Filter[] = [];
  const issues: FilterIssue[] = [];
  for (const [key, value] of Object.entries(filters)) {
    const [field, op] = operatorOf(key, value);
    if (field === '') {
      issues.push({ key, problem: 'no_field', msg: 'Filter key needs a field name before its operator suffix', type: 'value_error', input: key });
      continue;
    }
    if (op === 'in') {
      const values = (Array.isArray(value) ? value : typeof value === 'string' ? splitList(value) : [value]).filter((v) => v !== '');
      if (values.length === 0) {
        issues.push({ key, problem: 'no_value', msg: 'Filter needs at least one value', type: 'value_error', input: value });
        continue;
      }
      out.push({ field, op, value: values });
      continue;
    }
    if (RANGE_OPS.has(op)) {
      const bound = rangeBound(value);
      if (bound === undefined) {
        issues.push({ key, problem: 'not_a_bound', msg: 'Input should be a valid number or ISO date for a range filter', type: 'float_parsing', input: value });
        continue;
      }
      out.push({ field, op, value: bound });
      continue;
    }
    // Without a suffix an array means any of, so equality always holds a single value here.
    out.push({ field, op, value: value as Scalar });
  }
  return { filters: out, issues };
}

const SUFFIX_OF: Record<FilterOp, string> = { eq: '', in: '_in', gte: '_min', lte: '_max', gt: '_gt', lt: '_lt' };

/**
 * Writes filters back in the filter object's syntax, so a service that read them (and tidied them) can pass them on:
 * parseFilters reads the object it returns as the same filters.
 */
export function formatFilters(filters: Filter[]): Record<string, FilterValue> {
  const out: Record<string, FilterValue> = {};
  for (const f of filters) {
    const key = `${f.field}${SUFFIX_OF[f.op]}`;
    // Both `a_in` and a bare `a` holding a list read as any-of on `a`: the second such filter takes the bare key.
    out[f.op === 'in' && key in out ? f.field : key] = f.value;
  }
  return out;
}

function operatorOf(key: string, value: FilterValue): [string, FilterOp] {
  for (const [suffix, op] of SUFFIXES) {
    if (key.endsWith(suffix)) return [key.slice(0, -suffix.length), op];
  }
  if (Array.isArray(value) || (typeof value === 'string' && value.includes(','))) return [key, 'in'];
  return [key, 'eq'];
}

function splitList(value: string): string[] {
  return value.split(',').map((v) => v.trim());
}

/** A range filter's bound: a finite number (numeric strings read as numbers) or an ISO date, else undefined. */
function rangeBound(value: FilterValue): number | string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  return ISO_DATE.test(trimmed) && !Number.isNaN(Date.parse(trimmed)) ? trimmed : undefined;
}
