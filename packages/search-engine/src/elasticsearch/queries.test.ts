import type { estypes } from '@elastic/elasticsearch';
import { DEFAULT_SETTINGS } from '@trove/contracts';
import type { AggregateQuery, SearchQuery } from '../port';
import { compareScalars } from '../documents';
import { rulesOf } from '../terms';
import { TENANT } from './__tests__/fixtures';
import { indexesOf } from './mappings';
import {
  aggregateRequest,
  aggregateResult,
  collectionsRequest,
  collectionsResult,
  filterQuery,
  fuzzyQuery,
  modeOf,
  NAME_BOOST,
  normaliseScore,
  pageOf,
  scopeOf,
  searchRequest,
  searchResult,
  sortOf,
  TEXT_FIELDS,
  textQuery,
} from './queries';

const indexes = indexesOf('t');
const privateScope = { kind: 'private' as const, tenant_id: TENANT, collection: 'fasteners' };

function query(overrides: Partial<SearchQuery> = {}): SearchQuery {
  return { scope: privateScope, filters: [], limit: 20, offset: 0, ...overrides };
}

const onData = (field: string, value: object) => ({
  nested: { path: 'data', query: { bool: { filter: [{ term: { 'data.k': field } }, value] } } },
});

describe('scopes', () => {
  it('reads a private scope from the records index: tenant, collection, active status and the active generation', () => {
    expect(scopeOf(privateScope, indexes)).toEqual({
      index: 't-records',
      filter: [
        { term: { tenant_id: TENANT } },
        { term: { collection: 'fasteners' } },
        { term: { status: 'active' } },
        { terms: { generation: { index: 't-generations', id: `${TENANT}:fasteners`, path: 'active_generation' } } },
      ],
    });
  });

  it('reads the public scope from the public index, optionally one collection', () => {
    expect(scopeOf({ kind: 'public' }, indexes)).toEqual({ index: 't-public', filter: [] });
    expect(scopeOf({ kind: 'public', collection: 'c' }, indexes)).toEqual({
      index: 't-public',
      filter: [{ term: { collection: 'c' } }],
    });
  });
});

describe('filters', () => {
  it('matches eq and in against every spelling of every value inside the nested key/value array', () => {
    expect(filterQuery({ field: 'size', op: 'eq', value: 10 })).toEqual(onData('size', { terms: { 'data.j': ['10', '"10"'] } }));
    expect(filterQuery({ field: 'size', op: 'eq', value: '10' })).toEqual(onData('size', { terms: { 'data.j': ['"10"', '10'] } }));
    expect(filterQuery({ field: 'ok', op: 'eq', value: 'true' })).toEqual(onData('ok', { terms: { 'data.j': ['"true"', 'true'] } }));
    expect(filterQuery({ field: 'size', op: 'in', value: ['M8', 10, '10'] })).toEqual(
      onData('size', { terms: { 'data.j': ['"M8"', '10', '"10"'] } }),
    );
  });

  it('compares ranges with stored numbers, and with stored strings when the bound is no number (ISO dates)', () => {
    expect(filterQuery({ field: 'price', op: 'gte', value: 5 })).toEqual(onData('price', { range: { 'data.n': { gte: 5 } } }));
    expect(filterQuery({ field: 'price', op: 'lt', value: ' 7.5' })).toEqual(onData('price', { range: { 'data.n': { lt: 7.5 } } }));
    expect(filterQuery({ field: 'since', op: 'gt', value: '2024-01-01' })).toEqual(
      onData('since', { range: { 'data.s': { gt: '2024-01-01' } } }),
    );
    expect(filterQuery({ field: 'ok', op: 'gt', value: true })).toEqual({ match_none: {} });
  });

  it('combines scope and every filter with AND in one bool filter', () => {
    const request = searchRequest(
      query({
        filters: [
          { field: 'size', op: 'eq', value: 'M8' },
          { field: 'price', op: 'lte', value: 10 },
        ],
      }),
      indexes,
    );
    const filter = (request.query?.bool?.filter ?? []) as object[];
    expect(filter).toHaveLength(6);
    expect(filter.slice(4)).toEqual([
      onData('size', { terms: { 'data.j': ['"M8"'] } }),
      onData('price', { range: { 'data.n': { lte: 10 } } }),
    ]);
    expect(request.query?.bool?.must).toBeUndefined();
    expect(request.routing).toBe(TENANT);
  });
});

describe('text queries', () => {
  it('matches identifiers exactly with a constant score', () => {
    expect(textQuery({ type: 'identifier', query: 'DIN 933', identifiers: ['DIN933'] })).toEqual({
      constant_score: { filter: { terms: { identifiers: ['DIN933'] } }, boost: 1 },
    });
    expect(modeOf(query({ text: { type: 'identifier', query: 'DIN 933', identifiers: ['DIN933'] } }))).toBe('listed');
  });

  it('finds the base standard of an edition below the edition, ordered by score', () => {
    const text = { type: 'identifier' as const, query: 'ISO 9001:2015', identifiers: ['ISO90012015'] };
    expect(textQuery(text)).toEqual({
      dis_max: {
        queries: [
          { constant_score: { filter: { terms: { identifiers: ['ISO90012015'] } }, boost: 1 } },
          { constant_score: { filter: { terms: { identifiers: ['ISO9001'] } }, boost: 0.9 } },
        ],
      },
    });
    expect(modeOf(query({ text }))).toBe('editions');
    expect(searchRequest(query({ text }), indexes).sort?.[0]).toEqual({ _score: { order: 'desc' } });
  });

  it('detects the identifiers itself when an identifier query comes without them', () => {
    expect(textQuery({ type: 'identifier', query: 'din-933', identifiers: [] })).toEqual({
      constant_score: { filter: { terms: { identifiers: ['DIN933'] } }, boost: 1 },
    });
  });

  it('lists everything for a blank query and matches nothing for text without a word', () => {
    expect(modeOf(query({ text: { type: 'keyword', query: '  ', identifiers: [] } }))).toBe('listed');
    expect(modeOf(query({ text: { type: 'keyword', query: '?!', identifiers: [] } }))).toBe('nothing');
    expect(modeOf(query())).toBe('listed');
  });

  const typed = (query: string) => ({ multi_match: { query, fields: TEXT_FIELDS, type: 'best_fields', operator: 'and', tie_breaker: 0.3 } });
  const orTypo = (exact: unknown, typo: unknown) => ({ bool: { should: [exact, typo], minimum_should_match: 1 } });

  it('requires every keyword, the last one as a prefix (bool_prefix, operator and)', () => {
    expect(textQuery({ type: 'keyword', query: ' Hex  bolt-m ', identifiers: [] })).toEqual({
      bool: {
        must: [
          typed('hex'),
          orTypo(typed('bolt'), {
            multi_match: { query: 'oblt blot botl', fields: TEXT_FIELDS, type: 'best_fields', operator: 'or', boost: 0.5 },
          }),
          { multi_match: { query: 'm', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' } },
        ],
      },
    });
    expect(textQuery({ type: 'keyword', query: 'bol', identifiers: [] })).toEqual({
      multi_match: { query: 'bol', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' },
    });
  });

  it('matches with runs of letters and digits only, at most 16 words', () => {
    expect(textQuery({ type: 'keyword', query: 'bolt -', identifiers: [] })).toEqual(
      orTypo(
        { multi_match: { query: 'bolt', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' } },
        { multi_match: { query: 'oblt blot botl', fields: TEXT_FIELDS, type: 'best_fields', operator: 'or', boost: 0.5 } },
      ),
    );
    expect(textQuery({ type: 'keyword', query: ' - ', identifiers: [] })).toBeUndefined();
    const many = Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ');
    expect((textQuery({ type: 'keyword', query: many, identifiers: [] }) as { bool: { must: unknown[] } }).bool.must).toHaveLength(16);
  });

  it('matches any content word of a natural-language query, ranked, neighbouring words together scoring again', () => {
    expect(textQuery({ type: 'natural_language', query: 'What is the best bolt for wood?', identifiers: [] })).toEqual({
      bool: {
        should: [
          orTypo(typed('bolt'), { multi_match: { query: 'oblt blot botl', fields: TEXT_FIELDS, type: 'best_fields', operator: 'or', boost: 0.5 } }),
          orTypo(typed('wood'), { multi_match: { query: 'owod wodo', fields: TEXT_FIELDS, type: 'best_fields', operator: 'or', boost: 0.5 } }),
          { multi_match: { query: 'bolt wood', fields: TEXT_FIELDS, type: 'phrase' } },
        ],
        minimum_should_match: 1,
      },
    });
    expect(modeOf(query({ text: { type: 'natural_language', query: 'bolt for wood', identifiers: [] } }))).toBe('ranked');
  });

  it('searches over name, identifiers, descriptions and data text with name weighted highest', () => {
    expect(TEXT_FIELDS).toEqual(['name^10', 'identifiers.text^10', 'description^4', 'data_text']);
  });

  it('tolerates one typo from 5 letters and two from 9 (AUTO:5,9), a transposition at 4, none below', () => {
    expect(textQuery({ type: 'keyword', query: 'wahser', identifiers: [] })).toEqual(
      orTypo(
        { multi_match: { query: 'wahser', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' } },
        { multi_match: { query: 'wahser', fields: TEXT_FIELDS, type: 'best_fields', fuzziness: 'AUTO:5,9', boost: 0.5 } },
      ),
    );
    expect(textQuery({ type: 'keyword', query: 'nut', identifiers: [] })).toEqual({
      multi_match: { query: 'nut', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' },
    });
    expect(textQuery({ type: 'keyword', query: 'm8x40', identifiers: [] })).toEqual({
      multi_match: { query: 'm8x40', fields: TEXT_FIELDS, type: 'bool_prefix', operator: 'and' },
    });
  });

  it('reads collection_data field by field when a collection names searchable fields or turns typos off on some', () => {
    const settings = (searchable_fields: string[] | null, disable_on_fields: string[]) => ({
      ...DEFAULT_SETTINGS,
      searchable_fields,
      typo_tolerance: { ...DEFAULT_SETTINGS.typo_tolerance, disable_on_fields },
    });
    const own = ['name^10', 'identifiers.text^10', 'description^4'];
    const nested = (filter: object, boost: number, match: object) => ({
      nested: { path: 'data', score_mode: 'max', query: { bool: { filter: [filter], must: [match] } }, boost },
    });
    const prefix = { match_bool_prefix: { 'data.t': { query: 'nut', operator: 'and' } } };
    const fuzzy = { match: { 'data.t': { query: 'zincs', fuzziness: 'AUTO:5,9' } } };
    // material weighs 1, notes.text (read as notes) 1/2; typos off on notes.
    expect(textQuery({ type: 'keyword', query: 'nut', identifiers: [] }, rulesOf(settings(['material', 'notes.text'], ['notes'])))).toEqual({
      bool: { should: [{ multi_match: { query: 'nut', type: 'bool_prefix', operator: 'and', fields: own } }, nested({ terms: { 'data.k': ['material'] } }, 1, prefix), nested({ terms: { 'data.k': ['notes'] } }, 0.5, prefix)], minimum_should_match: 1 },
    });
    // Every field searched, typos off on the name and on code: the typo query leaves both out.
    const typo = textQuery({ type: 'natural_language', query: 'zincs', identifiers: [] }, rulesOf(settings(null, ['name', 'code']))) as { bool: { should: Array<{ bool: { should: object[] } }> } };
    expect(typo.bool.should[0]!.bool.should[1]).toEqual({
      bool: {
        should: [
          { multi_match: { query: 'zincs', type: 'best_fields', fuzziness: 'AUTO:5,9', boost: 0.5, fields: ['description^4'] } },
          nested({ bool: { must_not: [{ terms: { 'data.k': ['code'] } }] } }, 0.5, fuzzy),
        ],
        minimum_should_match: 1,
      },
    });
  });

  it('ranks a name equal to the query first and a name starting with it next', () => {
    const request = searchRequest(query({ text: { type: 'keyword', query: 'Spider-Man', identifiers: [] } }), indexes);
    expect((request.query as { bool: { should: unknown } }).bool.should).toEqual([
      { constant_score: { filter: { term: { name_key: 'spider man' } }, boost: NAME_BOOST } },
      { constant_score: { filter: { prefix: { name_key: 'spider man' } }, boost: NAME_BOOST } },
    ]);
    expect(normaliseScore(2 * NAME_BOOST + 3)).toBeCloseTo(0.9 + 0.09 * 0.75);
    expect(normaliseScore(NAME_BOOST + 3)).toBeCloseTo(0.8 + 0.09 * 0.75);
    expect(normaliseScore(3)).toBeCloseTo(0.6);
  });

  it('falls back to fuzzy matching on names', () => {
    expect(fuzzyQuery({ type: 'keyword', query: 'hexagn bolt', identifiers: [] })).toEqual({
      match: { name: { query: 'hexagn bolt', fuzziness: 'AUTO', operator: 'and' } },
    });
    expect(fuzzyQuery({ type: 'natural_language', query: 'Hexagn, bolt?', identifiers: [] })).toEqual({
      match: { name: { query: 'hexagn bolt', fuzziness: 'AUTO', operator: 'and' } },
    });
    expect(fuzzyQuery({ type: 'identifier', query: 'DIN 933', identifiers: ['DIN933'] })).toBeUndefined();
    const request = searchRequest(query({ text: { type: 'keyword', query: 'hexagn', identifiers: [] } }), indexes, true);
    expect(request.query?.bool?.must).toEqual([{ match: { name: { query: 'hexagn', fuzziness: 'AUTO', operator: 'and' } } }]);
  });
});

describe('sorting', () => {
  it('orders by relevance, name, then record_id with text, by name then record_id without', () => {
    expect(sortOf(undefined, true)).toEqual([{ _score: { order: 'desc' } }, { 'name.sort': { order: 'asc' } }, { record_id: { order: 'asc' } }]);
    expect(sortOf(undefined, false)).toEqual([{ 'name.sort': { order: 'asc' } }, { record_id: { order: 'asc' } }]);
  });

  it('sorts record columns directly', () => {
    expect(sortOf({ field: 'name', direction: 'desc' }, false)[0]).toEqual({ 'name.sort': { order: 'desc', missing: '_last' } });
    expect(sortOf({ field: 'updated_at', direction: 'asc' }, true)[0]).toEqual({ updated_at: { order: 'asc', missing: '_last' } });
  });

  it('sorts a data field through the nested array as jsonb orders it (strings, numbers, booleans), documents without it last', () => {
    const nested = { path: 'data', filter: { term: { 'data.k': 'price' } } };
    expect(sortOf({ field: 'price', direction: 'asc' }, false)).toEqual([
      { 'data.s': { order: 'asc', mode: 'min', missing: '_last', nested } },
      { 'data.n': { order: 'asc', mode: 'min', missing: '_last', nested } },
      { 'data.b': { order: 'asc', mode: 'min', missing: '_last', nested } },
      { 'name.sort': { order: 'asc' } },
      { record_id: { order: 'asc' } },
    ]);
    expect(sortOf({ field: 'price', direction: 'desc' }, true)).toEqual([
      { 'data.b': { order: 'desc', mode: 'max', missing: '_last', nested } },
      { 'data.n': { order: 'desc', mode: 'max', missing: '_last', nested } },
      { 'data.s': { order: 'desc', mode: 'max', missing: '_last', nested } },
      { _score: { order: 'desc' } },
      { 'name.sort': { order: 'asc' } },
      { record_id: { order: 'asc' } },
    ]);
  });

  it('orders identifier matches by name, since they all score 1.0', () => {
    const request = searchRequest(query({ text: { type: 'identifier', query: 'DIN 933', identifiers: ['DIN933'] } }), indexes);
    expect(request.sort).toEqual([{ 'name.sort': { order: 'asc' } }, { record_id: { order: 'asc' } }]);
  });
});

describe('scores and pages', () => {
  it('normalises scores into 0..1 keeping their order', () => {
    const scores = [0, 0.01, 0.5, 1, 3.7, 25, 1e6].map(normaliseScore);
    for (const s of scores) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(normaliseScore(null)).toBe(0);
    expect(normaliseScore(Number.NaN)).toBe(0);
  });

  function response(hits: Array<{ score: number | null; name: string }>, total: number): estypes.SearchResponse<object> {
    return {
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, failed: 0 },
      hits: {
        total: { value: total, relation: 'eq' },
        max_score: null,
        hits: hits.map((h, i) => ({ _index: 't-records', _id: String(i), _score: h.score, _source: { name: h.name } })),
      },
    };
  }

  it('scores listed hits 1.0, ranked hits by their normalised score and fuzzy hits by half of it', () => {
    const r = response(
      [
        { score: 4, name: 'a' },
        { score: null, name: 'b' },
      ],
      12,
    );
    expect(searchResult(r, 'listed').hits.map((h) => h.score)).toEqual([1, 1]);
    const ranked = searchResult(r, 'ranked');
    expect(ranked.hits.map((h) => h.score)).toEqual([0.8 * 0.8, 0]);
    expect(ranked.hits[0]!.document.name).toBe('a');
    expect(ranked.total_estimate).toBe(12);
    expect(ranked.total_is_estimate).toBe(false);
    expect(ranked.fuzzy).toBe(false);
    const many = response([], 10_000);
    many.hits.total = { value: 10_000, relation: 'gte' };
    expect(searchResult(many, 'ranked')).toMatchObject({ total_estimate: 10_000, total_is_estimate: true });
    const fuzzy = searchResult(r, 'fuzzy');
    expect(fuzzy.fuzzy).toBe(true);
    expect(fuzzy.hits[0]!.score).toBeCloseTo(0.32);
    expect(searchResult(response([], 0), 'fuzzy').fuzzy).toBe(false);
  });

  it('answers pages past the result window with no hits instead of an error', () => {
    expect(pageOf(40, 20)).toEqual({ from: 40, size: 20 });
    expect(pageOf(9_990, 20)).toEqual({ from: 9_990, size: 10 });
    expect(pageOf(50_000, 20)).toEqual({ from: 10_000, size: 0 });
  });

  it('fetches hits without the engine-only fields and counts totals up to 10,000', () => {
    const request = searchRequest(query({ text: { type: 'keyword', query: 'bolt', identifiers: [] }, offset: 20, limit: 5 }), indexes);
    expect(request).toMatchObject({ index: 't-records', from: 20, size: 5, track_total_hits: 10_000, track_scores: true });
    expect(request._source).toEqual({ excludes: ['identifiers', 'name_key', 'data_text', 'data', 'tombstone'] });
  });
});

describe('aggregation', () => {
  const aggregate = (overrides: Partial<AggregateQuery> = {}): AggregateQuery => ({
    scope: privateScope,
    filters: [],
    ...overrides,
  });

  it('groups a data field by its JSON value and takes stats of its numbers, through the nested array', () => {
    const request = aggregateRequest(aggregate({ group_by: 'size', stats: ['price', 'length'] }), indexes);
    expect(request.size).toBe(0);
    expect(request.track_total_hits).toBe(true);
    expect(request.aggs?.groups).toEqual({
      nested: { path: 'data' },
      aggs: {
        field: {
          filter: { term: { 'data.k': 'size' } },
          aggs: { values: { terms: { field: 'data.j', size: 100, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
        },
      },
    });
    expect(request.aggs?.stats_1).toEqual({
      nested: { path: 'data' },
      aggs: { field: { filter: { term: { 'data.k': 'length' } }, aggs: { values: { stats: { field: 'data.n' } } } } },
    });
  });

  it('groups record columns directly', () => {
    expect(aggregateRequest(aggregate({ group_by: 'record_type' }), indexes).aggs?.groups).toEqual({
      terms: { field: 'record_type', size: 100, order: [{ _count: 'desc' }, { _key: 'asc' }] },
    });
  });

  function aggregations(body: Record<string, unknown>, total = 7): estypes.SearchResponse {
    return {
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, failed: 0 },
      hits: { total: { value: total, relation: 'eq' }, max_score: null, hits: [] },
      aggregations: body as Record<string, estypes.AggregationsAggregate>,
    };
  }

  it('answers groups with their stored types, highest count first and ties by value, at most 50', () => {
    const buckets = [
      { key: '"M8"', doc_count: 3 },
      { key: '10', doc_count: 2 },
      { key: '"10"', doc_count: 2 },
      { key: '9', doc_count: 2 },
      { key: 'true', doc_count: 1 },
      ...Array.from({ length: 60 }, (_, i) => ({ key: `"z${String(i).padStart(2, '0')}"`, doc_count: 1 })),
    ];
    const result = aggregateResult(
      aggregate({ group_by: 'size' }),
      aggregations({ groups: { doc_count: 70, field: { doc_count: 70, values: { buckets } } } }),
    );
    expect(result.total).toBe(7);
    expect(result.groups.slice(0, 6)).toEqual([
      { value: 'M8', count: 3 },
      { value: '10', count: 2 },
      { value: 9, count: 2 },
      { value: 10, count: 2 },
      { value: 'z00', count: 1 },
      { value: 'z01', count: 1 },
    ]);
    expect(result.groups).toHaveLength(50);
    expect(result.groups.some((g) => g.value === true)).toBe(false);
  });

  it('answers stats, with nulls for a field without numbers', () => {
    const result = aggregateResult(
      aggregate({ stats: ['price', 'colour'] }),
      aggregations({
        stats_0: { doc_count: 3, field: { doc_count: 3, values: { count: 3, min: 1, max: 5, avg: 3, sum: 9 } } },
        stats_1: { doc_count: 0, field: { doc_count: 0, values: { count: 0, min: null, max: null, avg: null, sum: 0 } } },
      }),
    );
    expect(result.groups).toEqual([]);
    expect(result.stats).toEqual({
      price: { count: 3, min: 1, max: 5, avg: 3 },
      colour: { count: 0, min: null, max: null, avg: null },
    });
  });

  it("asks a search's facets in the search request and reads them as aggregation groups and stats, stats only where numbers are", () => {
    const facets = { fields: ['brand', 'record_type'], limit: 3 };
    const request = searchRequest(query({ text: { type: 'keyword', query: 'bolt', identifiers: [] }, facets }), indexes);
    const order = [{ _count: 'desc' }, { _key: 'asc' }];
    expect(request.aggs).toEqual({
      facet_0: {
        nested: { path: 'data' },
        aggs: { field: { filter: { term: { 'data.k': 'brand' } }, aggs: { values: { terms: { field: 'data.j', size: 6, order } } } } },
      },
      facet_stats_0: {
        nested: { path: 'data' },
        aggs: { field: { filter: { term: { 'data.k': 'brand' } }, aggs: { values: { stats: { field: 'data.n' } } } } },
      },
      facet_1: { terms: { field: 'record_type', size: 6, order } },
    });
    expect(searchRequest(query(), indexes).aggs).toBeUndefined();
    const buckets = [4, 1, 1, 2].map((doc_count, i) => ({ key: `"${'dcba'[i]}"`, doc_count }));
    const result = searchResult(
      {
        ...aggregations({
          facet_0: { doc_count: 8, field: { doc_count: 8, values: { buckets } } },
          facet_stats_0: { doc_count: 8, field: { doc_count: 8, values: { count: 0, min: null, max: null, avg: null, sum: 0 } } },
          facet_1: { buckets: [{ key: 'bolt', doc_count: 7 }] },
        }),
      } as estypes.SearchResponse<object>,
      'ranked',
      { facets },
    );
    expect(result.facets).toEqual({
      brand: { values: [{ value: 'd', count: 4 }, { value: 'a', count: 2 }, { value: 'b', count: 1 }] },
      record_type: { values: [{ value: 'bolt', count: 7 }] },
    });
  });

  it('orders tie values as jsonb does: strings, then numbers, then booleans', () => {
    expect([true, 'b', 10, 'a', 9, false].sort(compareScalars)).toEqual(['a', 'b', 9, 10, false, true]);
  });

  it('lists public collections in one request: collection buckets with record-type buckets inside', () => {
    const request = collectionsRequest([{ field: 'run', op: 'eq', value: 'r1' }], indexes);
    expect(request).toMatchObject({ index: 't-public', size: 0 });
    expect(request.routing).toBeUndefined();
    expect(request.query).toEqual({ bool: { filter: [filterQuery({ field: 'run', op: 'eq', value: 'r1' })] } });
    const order = [{ _count: 'desc' }, { _key: 'asc' }];
    expect(request.aggs).toEqual({
      collections: {
        terms: { field: 'collection', size: 100, order },
        aggs: { types: { terms: { field: 'record_type', size: 100, order } } },
      },
    });
  });

  it('answers the 50 largest collections, ties by name in code point order, with their record types', () => {
    const types = (...pairs: Array<[string, number]>) => ({ buckets: pairs.map(([key, doc_count]) => ({ key, doc_count })) });
    const buckets = [
      { key: 'b', doc_count: 2, types: types(['nut', 1], ['bolt', 1]) },
      { key: 'a', doc_count: 2, types: types(['bolt', 2]) },
      { key: 'Z', doc_count: 2, types: types(['washer', 2]) },
      { key: 'big', doc_count: 9, types: types(['bolt', 4], ['nut', 5]) },
      ...Array.from({ length: 60 }, (_, i) => ({ key: `c${String(i).padStart(2, '0')}`, doc_count: 1, types: types(['x', 1]) })),
    ];
    const result = collectionsResult(aggregations({ collections: { buckets } }));
    expect(result).toHaveLength(50);
    expect(result.slice(0, 4)).toEqual([
      { collection: 'big', count: 9, record_types: [{ value: 'nut', count: 5 }, { value: 'bolt', count: 4 }] },
      { collection: 'Z', count: 2, record_types: [{ value: 'washer', count: 2 }] },
      { collection: 'a', count: 2, record_types: [{ value: 'bolt', count: 2 }] },
      { collection: 'b', count: 2, record_types: [{ value: 'bolt', count: 1 }, { value: 'nut', count: 1 }] },
    ]);
    expect(result[49]!.collection).toBe('c45');
    expect(collectionsResult(aggregations({}))).toEqual([]);
  });
});
