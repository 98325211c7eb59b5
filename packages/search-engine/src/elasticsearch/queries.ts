import type { estypes } from '@elastic/elasticsearch';
import { AGGREGATE_GROUP_LIMIT } from '@trove/contracts';
import type {
  AggregateQuery,
  AggregateResult,
  CollectionGroup,
  FacetAnswer,
  FieldStats,
  Filter,
  Scalar,
  SearchQuery,
  SearchResult,
  SearchScope,
  Sort,
} from '../port';
import { queryWords } from '../classify';
import { compareScalars } from '../documents';
import { detectIdentifier, editionBases, normaliseIdentifier } from '../identifiers';
import { matchTerms, NO_RULES, rulesOf, withoutStopWords, type MatchTerm, type QueryRules } from '../terms';
import { transpositions, typoBudget } from '../typos';
import type { Indexes } from './mappings';
import { equalForms, fromSource, generationId, INTERNAL_FIELDS, numericValue, type StoredDocument } from './source';

type Query = estypes.QueryDslQueryContainer;

/** Elasticsearch's default index.max_result_window: from + size beyond it is refused. */
export const RESULT_WINDOW = 10_000;

/**
 * Field weights of the full-text match, in the PostgreSQL engine's proportions (name and identifiers 1.0, description
 * 0.4, collection_data text 0.1). The generated description is not searched: records builds it from the record's own
 * fields, and its template words ("film", "collection") and keys would match every record of a collection.
 */
export const TEXT_FIELDS = ['name^10', 'identifiers.text^10', 'description^4', 'data_text'];

/**
 * Added to the score of a document whose name starts with the query (words as query classification reads them), and
 * once more when the name is the query: beyond any text score, so exact names come first and name prefixes next.
 */
export const NAME_BOOST = 10_000;
/** A word matched only through a typo scores this share of the same word as typed. */
const TYPO_BOOST = 0.5;

/** Fields that are properties of every record rather than collection_data keys. */
const SORTABLE_COLUMNS: Record<string, string> = { name: 'name.sort', updated_at: 'updated_at', record_type: 'record_type' };
const GROUPABLE_COLUMNS = new Set(['record_type', 'collection']);

/**
 * Which index a scope reads and what selects its documents. A private scope reads the records index: the tenant's
 * collection, active status, and the collection's active generation looked up from the generations index at query time
 * (a terms lookup is a realtime get, so a swap is seen by the next search). The public index holds only searchable
 * documents, so the public scope needs no more than the collection.
 */
export function scopeOf(scope: SearchScope, indexes: Indexes): { index: string; filter: Query[] } {
  if (scope.kind === 'public') {
    return { index: indexes.public, filter: scope.collection === undefined ? [] : [{ term: { collection: scope.collection } }] };
  }
  return {
    index: indexes.records,
    filter: [
      { term: { tenant_id: scope.tenant_id } },
      { term: { collection: scope.collection } },
      { term: { status: 'active' } },
      {
        terms: {
          generation: {
            index: indexes.generations,
            id: generationId(scope.tenant_id, scope.collection),
            path: 'active_generation',
          },
        },
      },
    ],
  };
}

/** Routing by tenant lets a private query touch only the tenant's shard. */
export function routingOf(scope: SearchScope): { routing?: string } {
  return scope.kind === 'private' ? { routing: scope.tenant_id } : {};
}

function onData(field: string, value: Query): Query {
  return { nested: { path: 'data', query: { bool: { filter: [{ term: { 'data.k': field } }, value] } } } };
}

function values(value: Scalar | Scalar[]): Scalar[] {
  return Array.isArray(value) ? value : [value];
}

/**
 * One collection_data filter as a nested query, with the PostgreSQL engine's semantics: eq and in match any spelling
 * of any value (see equalForms); ranges compare numbers with stored numbers only, and a non-numeric string bound (an
 * ISO date) with stored strings in code point order.
 */
export function filterQuery(filter: Filter): Query {
  const { field, op } = filter;
  if (filter.on === 'record_type') return { terms: { record_type: values(filter.value).map(String) } };
  switch (op) {
    case 'eq':
    case 'in':
      return onData(field, { terms: { 'data.j': [...new Set(values(filter.value).flatMap(equalForms))] } });
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt': {
      const bound = values(filter.value)[0];
      const n = bound === undefined ? undefined : numericValue(bound);
      if (n !== undefined) return onData(field, { range: { 'data.n': { [op]: n } } });
      if (typeof bound === 'string') return onData(field, { range: { 'data.s': { [op]: bound } } });
      return { match_none: {} };
    }
    default:
      throw new Error(`Unknown filter operator ${String((filter as Filter).op)}`);
  }
}

/** The normalised identifiers an identifier query asks for; the query itself when the classifier found none. */
export function queryIdentifiers(text: NonNullable<SearchQuery['text']>): string[] {
  if (text.identifiers.length > 0) return text.identifiers.map(normaliseIdentifier);
  return detectIdentifier(text.query) ?? [normaliseIdentifier(text.query)];
}

/**
 * The full-text part of a query, or undefined when it has nothing to match with.
 * - identifier: exact terms on the normalised identifiers, constant score.
 * - keyword: every word must match in some field (term-centric, like a tsquery `a & b & c:*`), the last as a prefix.
 * - natural_language: any word matches, ranked.
 */
export function textQuery(text: SearchQuery['text'], rules: QueryRules = NO_RULES): Query | undefined {
  if (!text || !text.query.trim()) return undefined;
  if (text.type === 'identifier') {
    const exact: Query = { constant_score: { filter: { terms: { identifiers: queryIdentifiers(text) } }, boost: 1 } };
    const bases = editionBases(text.query).filter((b) => !queryIdentifiers(text).includes(b));
    if (bases.length === 0) return exact;
    // An edition's query also finds the base standard, below the edition (the PostgreSQL engine's EDITION_BASE_SCORE).
    return { dis_max: { queries: [exact, { constant_score: { filter: { terms: { identifiers: bases } }, boost: 0.9 } }] } };
  }
  if (text.type === 'natural_language') {
    const terms = matchTerms(text.query, 'any', rules);
    if (terms.length === 0) return undefined;
    // Any term matches; neighbouring query terms standing together in a field score again.
    const together: Query[] = terms.slice(1).map((term, i) => across(fieldsOf(rules, false), { query: `${terms[i]!.word} ${term.word}`, type: 'phrase' }));
    return { bool: { should: [...terms.map((t) => termQuery(t, rules)), ...together], minimum_should_match: 1 } };
  }
  const terms = matchTerms(text.query, 'keyword', rules);
  if (terms.length === 0) return undefined;
  const must = terms.map((t) => termQuery(t, rules));
  return must.length === 1 ? must[0] : { bool: { must } };
}

/**
 * One term of a query (terms.ts): its word (wordQuery()), or a synonym rule's words each matching as a query's words
 * do; or any of its synonyms, a word or a phrase, scored as the term typed.
 */
function termQuery(term: MatchTerm, rules: QueryRules): Query {
  const own: Query = term.parts ? { bool: { must: term.parts.map((p) => wordQuery(p, false, rules)) } } : wordQuery(term.word, term.prefix, rules);
  if (!term.synonyms || term.synonyms.length === 0) return own;
  const synonyms: Query[] = term.synonyms.map((words) => across(fieldsOf(rules, false), { query: words.join(' '), type: words.length === 1 ? 'best_fields' : 'phrase' }));
  return { bool: { should: [own, ...synonyms], minimum_should_match: 1 } };
}

/**
 * Where a word is looked for under a collection's settings (terms.ts FieldRules): the record's own text fields (one
 * multi_match), and collection_data as a whole (data_text) or field by field (the nested entries' words, `data.t`,
 * each searchable field weighing (n - i) / n of collection_data's weight, as in the PostgreSQL engine's order), or all
 * but the fields typos are off for. `typo`: for a typo's match, which leaves out the fields typos are off for.
 */
interface Fields {
  own: string[];
  data: 'all' | { keys: string[]; boost: number }[] | { except: string[] };
}

/** A dotted field's top-level key: the nested entries hold top-level keys (source.ts dataEntries). */
const topKey = (field: string) => field.split('.')[0]!;

export function fieldsOf(rules: QueryRules, typo: boolean): Fields {
  const { searchable, typedOnly } = rules.fields;
  const own = TEXT_FIELDS.filter(
    (f) => f !== 'data_text' && !(typo && typedOnly.name && /^(name|identifiers)/.test(f)) && !(typo && typedOnly.description && f.startsWith('description')),
  );
  const off = typo ? typedOnly.data.map(topKey) : [];
  if (searchable === undefined) return { own, data: off.length === 0 ? 'all' : { except: [...new Set(off)] } };
  const keys = [...new Set(searchable.map(topKey))].filter((k) => !off.includes(k));
  return { own, data: keys.map((k, i) => ({ keys: [k], boost: (keys.length - i) / keys.length })) };
}

interface MatchOptions {
  query: string;
  type: 'best_fields' | 'bool_prefix' | 'phrase';
  operator?: 'and' | 'or';
  fuzziness?: string;
  boost?: number;
  tie_breaker?: number;
}

/** The same match on one field of the nested entries (`data.t`). */
function matchOn(field: string, m: MatchOptions): Query {
  if (m.type === 'phrase') return { match_phrase: { [field]: { query: m.query } } };
  if (m.type === 'bool_prefix') return { match_bool_prefix: { [field]: { query: m.query, ...(m.operator && { operator: m.operator }) } } };
  return { match: { [field]: { query: m.query, ...(m.operator && { operator: m.operator }), ...(m.fuzziness && { fuzziness: m.fuzziness }) } } };
}

/** A match across the fields: one multi_match, with nested queries for collection_data read field by field. */
function across(fields: Fields, m: MatchOptions): Query {
  const plain: Query = { multi_match: { ...m, fields: fields.data === 'all' ? [...fields.own, 'data_text'] : fields.own } };
  if (fields.data === 'all') return plain;
  // A multi_match with no fields would search the index's default fields: none is left out instead.
  const own = fields.own.length > 0 ? [plain] : [];
  const nested = (filter: Query, boost: number): Query => ({
    nested: { path: 'data', score_mode: 'max', query: { bool: { filter: [filter], must: [matchOn('data.t', m)] } }, boost: boost * (m.boost ?? 1) },
  });
  const data =
    'except' in fields.data
      ? [nested({ bool: { must_not: [{ terms: { 'data.k': fields.data.except } }] } }, 1)]
      : fields.data.map((g) => nested({ terms: { 'data.k': g.keys } }, g.boost));
  if (own.length + data.length === 0) return { bool: { must_not: [{ match_all: {} }] } };
  return { bool: { should: [...own, ...data], minimum_should_match: 1 } };
}

/**
 * One word as typed (the last keyword word as a prefix) or within its typo budget (typos.ts), the typo scoring
 * TYPO_BOOST of the word as typed. Elasticsearch's fuzziness `AUTO:5,9` is the budget of 5 letters and more
 * (transpositions count one; a collection's typo settings move both bounds); a shorter word's transpositions are spelt
 * out. No typos when the collection turns them off (`typos` undefined).
 */
function wordQuery(word: string, prefix: boolean, rules: QueryRules): Query {
  const { typos } = rules;
  const typed = prefix
    ? across(fieldsOf(rules, false), { query: word, type: 'bool_prefix', operator: 'and' })
    : across(fieldsOf(rules, false), { query: word, type: 'best_fields', operator: 'and', tie_breaker: 0.3 });
  if (!typos || typoBudget(word, typos) === 0) return typed;
  const near = fieldsOf(rules, true);
  const typo: Query =
    word.length < typos.one
      ? across(near, { query: transpositions(word).join(' '), type: 'best_fields', operator: 'or', boost: TYPO_BOOST })
      : across(near, { query: word, type: 'best_fields', fuzziness: `AUTO:${typos.one},${typos.two}`, boost: TYPO_BOOST });
  return { bool: { should: [typed, typo], minimum_should_match: 1 } };
}

/** The name-ranking clauses of a ranked query (see NAME_BOOST). */
export function nameQueries(text: NonNullable<SearchQuery['text']>): Query[] {
  const key = queryWords(text.query).join(' ');
  if (!key) return [];
  return [
    { constant_score: { filter: { term: { name_key: key } }, boost: NAME_BOOST } },
    { constant_score: { filter: { prefix: { name_key: key } }, boost: NAME_BOOST } },
  ];
}

/**
 * The typo-tolerant fallback: names holding every word of the query within an edit distance (AUTO: none for 1-2
 * characters, one for 3-5, two beyond), the counterpart of PostgreSQL's trigram word similarity on the whole query.
 */
export function fuzzyQuery(text: NonNullable<SearchQuery['text']>): Query | undefined {
  const words = queryWords(text.query);
  if (words.length === 0 || text.type === 'identifier') return undefined;
  return { match: { name: { query: words.join(' '), fuzziness: 'AUTO', operator: 'and' } } };
}

/**
 * The sort clauses: the requested field, then the default order as tie-breaker: relevance then record_id for ranked
 * queries, name then record_id for identifier and filter-only ones. A field no document has is missing everywhere and
 * so leaves the default order.
 *
 * A collection_data field sorts as PostgreSQL orders jsonb values (strings < numbers < booleans), documents without
 * it last: one key per JSON type, in type order for the direction, each putting the other types after it.
 */
export function sortOf(sort: Sort | undefined, ranked: boolean): estypes.SortCombinations[] {
  const defaults: estypes.SortCombinations[] = ranked
    ? [{ _score: { order: 'desc' } }, { 'name.sort': { order: 'asc' } }, { record_id: { order: 'asc' } }]
    : [{ 'name.sort': { order: 'asc' } }, { record_id: { order: 'asc' } }];
  if (!sort) return defaults;
  const order = sort.direction;
  const column = SORTABLE_COLUMNS[sort.field];
  if (column) return [{ [column]: { order, missing: '_last' } }, ...defaults];
  const nested: estypes.NestedSortValue = { path: 'data', filter: { term: { 'data.k': sort.field } } };
  const mode = order === 'asc' ? 'min' : 'max';
  const types = order === 'asc' ? ['data.s', 'data.n', 'data.b'] : ['data.b', 'data.n', 'data.s'];
  return [...types.map((key) => ({ [key]: { order, mode, missing: '_last' as const, nested } })), ...defaults];
}

/**
 * Text scores are unbounded; s / (s + 1) maps them into 0..1 keeping their order, and depends on the hit alone (not on
 * the other hits of the page), so a document scores the same on every page. Identifier matches and filter-only hits
 * are exact and score 1.0. A name equal to the query lands in 0.9..0.99 and a name starting with it in 0.8..0.89,
 * every other match at or below 0.8, as in the PostgreSQL engine.
 */
export function normaliseScore(score: number | null | undefined): number {
  if (score === null || score === undefined || !Number.isFinite(score) || score <= 0) return 0;
  const squash = (s: number) => s / (s + 1);
  if (score >= 2 * NAME_BOOST) return 0.9 + 0.09 * squash(score - 2 * NAME_BOOST);
  if (score >= NAME_BOOST) return 0.8 + 0.09 * squash(score - NAME_BOOST);
  return 0.8 * squash(score);
}

/**
 * How a query is answered: `listed` (filters only, or identifiers: every match in one order, scored 1.0), `ranked`
 * full text, `fuzzy` (the fallback's hits) or `nothing` (text without a single word matches nothing).
 */
export type SearchMode = 'listed' | 'ranked' | 'fuzzy' | 'nothing' | 'editions';

export function modeOf(query: SearchQuery): SearchMode {
  const text = query.text;
  if (text?.type === 'identifier' && editionBases(text.query).some((b) => !queryIdentifiers(text).includes(b))) return 'editions';
  if (!text || !text.query.trim() || text.type === 'identifier') return 'listed';
  return textQuery(text, rulesOf(query.settings)) ? 'ranked' : 'nothing';
}

/** Pages past the result window answer no hits rather than an error; total_estimate still tells how many matched. */
export function pageOf(offset: number, limit: number): { from: number; size: number } {
  const from = Math.max(0, Math.min(offset, RESULT_WINDOW));
  return { from, size: Math.max(0, Math.min(limit, RESULT_WINDOW - from)) };
}

/** The request of a listed or ranked search, or with `fuzzy` of its typo-tolerant fallback. */
export function searchRequest(query: SearchQuery, indexes: Indexes, fuzzy = false): estypes.SearchRequest {
  const scope = scopeOf(query.scope, indexes);
  const text = fuzzy && query.text ? fuzzyQuery(query.text) : textQuery(query.text, rulesOf(query.settings));
  const filter = [...scope.filter, ...query.filters.map(filterQuery)];
  const { from, size } = pageOf(query.offset, query.limit);
  const sort = sortOf(query.sort, fuzzy || modeOf(query) === 'ranked' || modeOf(query) === 'editions');
  return {
    index: scope.index,
    ...routingOf(query.scope),
    query: {
      bool: text
        ? {
            filter,
            must: [text],
            // Names are compared with the query without the collection's stop words.
            ...(!fuzzy && query.text && { should: nameQueries({ ...query.text, query: withoutStopWords(query.text.query, rulesOf(query.settings)) }) }),
          }
        : { filter },
    },
    sort,
    from,
    size,
    track_total_hits: RESULT_WINDOW,
    // Scores are computed anyway when the first sort key is not the score.
    track_scores: text !== undefined,
    _source: { excludes: INTERNAL_FIELDS },
    ...(query.facets && { aggs: facetAggregations(query.facets) }),
  };
}

/** A search's facets: each field's values and numeric stats over every match, as aggregateRequest asks for a group and stats. */
function facetAggregations({ fields, limit }: NonNullable<SearchQuery['facets']>): Record<string, estypes.AggregationsAggregationContainer> {
  const aggs: Record<string, estypes.AggregationsAggregationContainer> = {};
  fields.forEach((field, i) => {
    aggs[`facet_${i}`] = groupAggregation(field, limit);
    // A record column holds text: no stats.
    if (!GROUPABLE_COLUMNS.has(field)) aggs[`facet_stats_${i}`] = statsAggregation(field);
  });
  return aggs;
}

/** The facets of a search's answer (facetAggregations()), each field's values as aggregateResult reads a group. */
function facetsOf({ fields, limit }: NonNullable<SearchQuery['facets']>, response: estypes.SearchResponse<unknown>): Record<string, FacetAnswer> {
  const aggregations = (response.aggregations ?? {}) as Record<string, unknown>;
  const facets: Record<string, FacetAnswer> = {};
  fields.forEach((field, i) => {
    const stats = statsOf(aggregations[`facet_stats_${i}`]);
    facets[field] = { values: groupsOf(field, aggregations[`facet_${i}`], limit), ...(stats.count > 0 && { stats }) };
  });
  return facets;
}

/**
 * Listed hits score 1.0; ranked ones their normalised score; fuzzy ones half of it, as in the PostgreSQL engine, so a
 * guess never outranks what a real match would have scored.
 */
export function searchResult(response: estypes.SearchResponse<Partial<StoredDocument>>, mode: SearchMode, query: Pick<SearchQuery, 'facets'> = {}): SearchResult {
  const total = response.hits.total;
  const total_estimate = typeof total === 'number' ? total : (total?.value ?? 0);
  const scoreOf = (score: number | null | undefined) =>
    mode === 'listed' ? 1 : mode === 'editions' ? Math.min(1, score ?? 0) : mode === 'fuzzy' ? normaliseScore(score) / 2 : normaliseScore(score);
  return {
    hits: response.hits.hits.map((hit) => ({ score: scoreOf(hit._score), document: fromSource(hit._source ?? {}) })),
    total_estimate,
    // track_total_hits counts exactly up to RESULT_WINDOW and answers relation `gte` beyond.
    total_is_estimate: typeof total === 'object' && total.relation === 'gte',
    fuzzy: mode === 'fuzzy' && total_estimate > 0,
    ...(query.facets && { facets: facetsOf(query.facets, response) }),
  };
}

function dataAggregation(field: string, inner: Record<string, estypes.AggregationsAggregationContainer>) {
  return {
    nested: { path: 'data' },
    aggs: { field: { filter: { term: { 'data.k': field } }, aggs: inner } },
  } satisfies estypes.AggregationsAggregationContainer;
}

export function aggregateRequest(query: AggregateQuery, indexes: Indexes): estypes.SearchRequest {
  const scope = scopeOf(query.scope, indexes);
  const aggs: Record<string, estypes.AggregationsAggregationContainer> = {};
  if (query.group_by !== undefined) aggs.groups = groupAggregation(query.group_by, AGGREGATE_GROUP_LIMIT);
  (query.stats ?? []).forEach((field, i) => {
    aggs[`stats_${i}`] = statsAggregation(field);
  });
  return {
    index: scope.index,
    ...routingOf(query.scope),
    query: { bool: { filter: [...scope.filter, ...query.filters.map(filterQuery)] } },
    size: 0,
    track_total_hits: true,
    aggs,
  };
}

/** The `limit` largest groups of a field's values: a record column's terms, or a collection_data field's. */
function groupAggregation(field: string, limit: number): estypes.AggregationsAggregationContainer {
  return GROUPABLE_COLUMNS.has(field) ? terms(field, undefined, limit) : dataAggregation(field, { values: terms('data.j', undefined, limit) });
}

/** A collection_data field's numeric stats. */
function statsAggregation(field: string): estypes.AggregationsAggregationContainer {
  return dataAggregation(field, { values: { stats: { field: 'data.n' } } });
}

/** More buckets than shown, so re-ordering ties by value rarely depends on which ties Elasticsearch cut. */
function terms(
  field: string,
  inner?: Record<string, estypes.AggregationsAggregationContainer>,
  limit = AGGREGATE_GROUP_LIMIT,
): estypes.AggregationsAggregationContainer {
  return { terms: { field, size: limit * 2, order: [{ _count: 'desc' }, { _key: 'asc' }] }, ...(inner && { aggs: inner }) };
}

/** The public index grouped by collection, each with its record types: one request. */
export function collectionsRequest(filters: Filter[], indexes: Indexes): estypes.SearchRequest {
  const scope = scopeOf({ kind: 'public' }, indexes);
  return {
    index: scope.index,
    query: { bool: { filter: [...scope.filter, ...filters.map(filterQuery)] } },
    size: 0,
    aggs: { collections: terms('collection', { types: terms('record_type') }) },
  };
}

export function collectionsResult(response: estypes.SearchResponse): CollectionGroup[] {
  const byCount = <T extends { count: number; name: string }>(a: T, b: T) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const aggregations = (response.aggregations ?? {}) as Record<string, unknown>;
  const buckets = (aggregations.collections as { buckets?: Array<Bucket & { types?: { buckets?: Bucket[] } }> } | undefined)?.buckets ?? [];
  return buckets
    .map((b) => ({ name: String(b.key), count: b.doc_count, types: b.types?.buckets ?? [] }))
    .sort(byCount)
    .slice(0, AGGREGATE_GROUP_LIMIT)
    .map((c) => ({
      collection: c.name,
      count: c.count,
      record_types: c.types
        .map((t) => ({ name: String(t.key), count: t.doc_count }))
        .sort(byCount)
        .slice(0, AGGREGATE_GROUP_LIMIT)
        .map((t) => ({ value: t.name, count: t.count })),
    }));
}

interface Bucket {
  key: string | number;
  key_as_string?: string;
  doc_count: number;
}

function bucketsOf(aggregation: unknown): Bucket[] {
  const node = aggregation as { buckets?: Bucket[]; field?: { values?: { buckets?: Bucket[] } } } | undefined;
  return node?.buckets ?? node?.field?.values?.buckets ?? [];
}

function parseGroupValue(bucket: Bucket, isColumn: boolean): Scalar {
  if (isColumn) return String(bucket.key);
  try {
    const value = JSON.parse(String(bucket.key)) as unknown;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  } catch {
    // A value longer than the keyword limit is not indexed, so a key is always one this engine wrote as JSON.
  }
  return String(bucket.key);
}

/** A group aggregation's `limit` largest values (groupAggregation()), highest count first, ties by value. */
function groupsOf(field: string, aggregation: unknown, limit: number): Array<{ value: Scalar; count: number }> {
  const isColumn = GROUPABLE_COLUMNS.has(field);
  return bucketsOf(aggregation)
    .map((b) => ({ value: parseGroupValue(b, isColumn), count: b.doc_count }))
    .sort((a, b) => b.count - a.count || compareScalars(a.value, b.value))
    .slice(0, limit);
}

/** A stats aggregation's answer (statsAggregation()): all null when no value was a number. */
function statsOf(aggregation: unknown): FieldStats {
  const s = (aggregation as { field?: { values?: estypes.AggregationsStatsAggregate } } | undefined)?.field?.values;
  const count = s?.count ?? 0;
  return count === 0 || !s ? { count: 0, min: null, max: null, avg: null } : { count, min: s.min ?? null, max: s.max ?? null, avg: s.avg ?? null };
}

export function aggregateResult(query: AggregateQuery, response: estypes.SearchResponse): AggregateResult {
  const aggregations = (response.aggregations ?? {}) as Record<string, unknown>;
  const total = response.hits.total;
  const groups = query.group_by === undefined ? [] : groupsOf(query.group_by, aggregations.groups, AGGREGATE_GROUP_LIMIT);
  const stats: Record<string, FieldStats> = {};
  (query.stats ?? []).forEach((field, i) => {
    stats[field] = statsOf(aggregations[`stats_${i}`]);
  });
  return { total: typeof total === 'number' ? total : (total?.value ?? 0), groups, stats };
}
