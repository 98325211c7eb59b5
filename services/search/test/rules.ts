import { product } from './product';

/** An answer as both harnesses give it: supertest in process, fetch through the gateway. */
export interface Res {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string>;
}

export interface Api {
  get(path: string): Promise<Res>;
  post(path: string, body?: unknown): Promise<Res>;
  patch(path: string, body?: unknown): Promise<Res>;
  delete(path: string): Promise<Res>;
}

/** One tenant's view: paths as the services name them (`/records`, `/search/{c}`); a harness adds any prefix. */
export interface RulesTenant {
  id: string;
  /** Records calls (records scope). */
  records: Api;
  /** Search calls (search scope). */
  search: Api;
  /** Search calls by a credential without the search scope. */
  searchWithoutScope: Api;
}

export interface RulesSystem {
  tenant(): Promise<RulesTenant>;
  stop(): Promise<void>;
}

/**
 * Every rule of private search, written once and run twice: against the services in process (services/search/test)
 * and through the gateway of the whole system (test-e2e). Cases marked in-process reach what the gateway never
 * forwards (the internal public index route, a service's own /metrics).
 */
export function searchRules(start: () => Promise<RulesSystem>, opts: { inProcess: boolean }): void {
  let sys: RulesSystem;
  let t: RulesTenant;
  const inProcess = opts.inProcess ? it : it.skip;

  beforeAll(async () => {
    sys = await start();
    t = await sys.tenant();
  });
  afterAll(() => sys?.stop());

  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await t.records.post('/records', product(overrides));
    expect(res.status).toBe(201);
    return res.body as { id: string; indexing_status: string };
  };
  const search = (collection: string, body: Record<string, unknown>) => t.search.post(`/search/${collection}`, body);
  const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((r) => r.name);

  describe('read your writes', () => {
    it('finds a record created with POST /records in the very next search, which answered indexed', async () => {
      const created = await create({ collection: 'ryw', name: 'Carriage bolt M10 zinc plated' });
      expect(created.indexing_status).toBe('indexed');
      const res = await search('ryw', { query: 'carriage bolt' });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { record_id: string }) => r.record_id)).toEqual([created.id]);
    });

    it('sees a PATCH and a DELETE in the next search', async () => {
      const { id } = await create({ collection: 'ryw2', name: 'Wing nut M6' });
      expect((await search('ryw2', { query: 'wing nut' })).body.results).toHaveLength(1);
      const patched = await t.records.patch(`/records/${id}`, { name: 'Cap nut M6' });
      expect(patched.body.indexing_status).toBe('indexed');
      expect((await search('ryw2', { query: 'wing nut' })).body.results).toHaveLength(0);
      expect(names(await search('ryw2', { query: 'cap nut' }))).toEqual(['Cap nut M6']);
      expect((await t.records.delete(`/records/${id}`)).status).toBe(204);
      expect((await search('ryw2', { query: 'cap nut' })).body.results).toHaveLength(0);
    });
  });

  describe('who sees what', () => {
    it('never returns another tenant\u2019s records, drafts or archived records', async () => {
      const other = await sys.tenant();
      await other.records.post('/records', product({ collection: 'iso', name: 'Foreign washer' }));
      await create({ collection: 'iso', name: 'Draft washer', status: 'draft' });
      const archived = await create({ collection: 'iso', name: 'Archived washer' });
      await t.records.delete(`/records/${archived.id}`);
      const mine = await create({ collection: 'iso', name: 'Own washer' });
      const res = await search('iso', { query: 'washer' });
      expect(res.body.results.map((r: { record_id: string }) => r.record_id)).toEqual([mine.id]);
      expect((await other.search.post('/search/iso', { query: 'washer' })).body.results.map((r: { name: string }) => r.name)).toEqual(['Foreign washer']);
    });

    inProcess('puts a public record into the shared public index and takes it out when made private', async () => {
      const other = await sys.tenant();
      const { id } = await create({ collection: 'pub', name: 'Public spring washer', visibility: 'public' });
      await other.records.post('/records', product({ collection: 'pub', name: 'Another public spring washer', visibility: 'public' }));
      await create({ collection: 'pub', name: 'Private spring washer' });
      const publicSearch = () => t.search.post('/internal/public/search', { query: 'spring washer', limit: 10 });
      expect(names(await publicSearch()).sort()).toEqual(['Another public spring washer', 'Public spring washer']);

      expect((await t.records.patch(`/records/${id}/visibility`, { visibility: 'private' })).status).toBe(200);
      expect(names(await publicSearch())).toEqual(['Another public spring washer']);
      await t.records.patch(`/records/${id}/visibility`, { visibility: 'public' });
      expect(names(await publicSearch()).sort()).toEqual(['Another public spring washer', 'Public spring washer']);
    });
  });

  describe('results and metadata', () => {
    beforeAll(async () => {
      await create({ collection: 'shape', name: 'Socket cap screw M5x20', collection_data: { material: 'steel', price: 0.3, ean: '4006381333931' } });
      await create({ collection: 'shape', name: 'Socket set screw M5x8', collection_data: { material: 'brass', price: 0.9 } });
    });

    it('answers every field of a result item and of the metadata', async () => {
      const res = await search('shape', { query: 'socket cap' });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(1);
      const [item] = res.body.results;
      expect(Object.keys(item).sort()).toEqual(
        ['collection', 'collection_data', 'description', 'description_llm', 'name', 'record_id', 'record_type', 'score', 'source_type', 'updated_at'].sort(),
      );
      expect(item).toMatchObject({ name: 'Socket cap screw M5x20', collection: 'shape', record_type: 'product', source_type: 'api' });
      expect(item.score).toBeGreaterThan(0);
      expect(item.score).toBeLessThanOrEqual(1);
      expect(res.body.pagination).toEqual({ offset: 0, limit: 20, has_more: false });
      expect(res.body.metadata).toEqual({
        search_mode: 'fulltext',
        query_type: 'keyword',
        processing_time_ms: expect.any(Number),
        total_estimate: 1,
        total_is_estimate: false,
        cache_hit: false,
        zero_result_fallback_used: false,
        timings: { classify_ms: expect.any(Number), search_ms: expect.any(Number), hydrate_ms: expect.any(Number) },
      });
    });

    it('matches an EAN exactly with score 1.0 in identifier mode', async () => {
      const res = await search('shape', { query: '4006381333931' });
      expect(names(res)).toEqual(['Socket cap screw M5x20']);
      expect(res.body.results[0].score).toBe(1);
      expect(res.body.metadata).toMatchObject({ search_mode: 'identifier', query_type: 'identifier' });
    });

    it('requires every keyword and matches the last one as a prefix', async () => {
      expect(names(await search('shape', { query: 'socket scr' })).sort()).toEqual(['Socket cap screw M5x20', 'Socket set screw M5x8']);
      expect(names(await search('shape', { query: 'socket set' }))).toEqual(['Socket set screw M5x8']);
    });

    it('classifies a sentence as natural language and ranks by any term', async () => {
      const res = await search('shape', { query: 'which screw is made for a brass thread' });
      expect(res.body.metadata.query_type).toBe('natural_language');
      expect(names(res)[0]).toBe('Socket set screw M5x8');
    });

    it('drops the query and keeps the filters when both together find nothing', async () => {
      const res = await search('shape', { query: 'flange', filters: { material: 'brass' } });
      expect(names(res)).toEqual(['Socket set screw M5x8']);
      expect(res.body.metadata).toMatchObject({ zero_result_fallback_used: true, search_mode: 'filtered' });
    });

    it('renders compact as a markdown table and yaml as a list, both plain text', async () => {
      const compact = await search('shape', { query: 'socket', format: 'compact' });
      expect(compact.headers['content-type']).toMatch(/^text\/plain/);
      expect(compact.text.split('\n')[0]).toBe('| # | Name | Score | Key Data |');
      expect(compact.text).toContain('| 1 | Socket');
      const yaml = await search('shape', { query: 'socket', format: 'yaml' });
      expect(yaml.headers['content-type']).toMatch(/^text\/plain/);
      expect(yaml.text).toMatch(/^- name: Socket/);
      expect(yaml.text).toContain('score:');
      expect(yaml.text).toContain('material:');
    });

    it('answers GET /search/{collection} with q, limit and offset like POST json', async () => {
      const res = await t.search.get('/search/shape?q=socket&limit=1&offset=1');
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(1);
      expect(res.body.pagination).toEqual({ offset: 1, limit: 1, has_more: false });
      expect((await t.search.get('/search/shape')).status).toBe(422);
    });
  });

  describe('filters, sort and pagination', () => {
    beforeAll(async () => {
      for (const [name, price, material, in_stock] of [
        ['Alpha nut', 1, 'steel', true],
        ['Bravo nut', 2, 'brass', false],
        ['Charlie nut', 3, 'steel', true],
        ['Delta nut', 4, 'nylon', true],
      ] as const) {
        await create({ collection: 'filt', name, collection_data: { price, material, in_stock } });
      }
    });
    const filtered = async (filters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      names(await search('filt', { filters, ...extra })).sort();

    it('applies exact, comma IN, _in, _min, _max, _gt, _lt and boolean filters, combined with AND', async () => {
      expect(await filtered({ material: 'steel' })).toEqual(['Alpha nut', 'Charlie nut']);
      expect(await filtered({ material: 'brass,nylon' })).toEqual(['Bravo nut', 'Delta nut']);
      expect(await filtered({ material_in: ['brass', 'nylon'] })).toEqual(['Bravo nut', 'Delta nut']);
      expect(await filtered({ price_min: 2, price_max: 3 })).toEqual(['Bravo nut', 'Charlie nut']);
      expect(await filtered({ price_gt: 2, price_lt: 4 })).toEqual(['Charlie nut']);
      expect(await filtered({ in_stock: false })).toEqual(['Bravo nut']);
      expect(await filtered({ material: 'steel', price_gt: 1 })).toEqual(['Charlie nut']);
    });

    it('sorts by a data field either way and keeps the default order for a field no record has', async () => {
      expect(names(await search('filt', { query: 'nut', sort: '-price' }))).toEqual(['Delta nut', 'Charlie nut', 'Bravo nut', 'Alpha nut']);
      expect(names(await search('filt', { query: 'nut', sort: 'price' }))).toEqual(['Alpha nut', 'Bravo nut', 'Charlie nut', 'Delta nut']);
      const plain = await search('filt', { query: 'nut' });
      const unknown = await search('filt', { query: 'nut', sort: 'no_such_field' });
      expect(unknown.status).toBe(200);
      expect(names(unknown)).toEqual(names(plain));
    });

    it('pages with offset and limit and says whether more follow', async () => {
      const first = await search('filt', { query: 'nut', sort: 'price', limit: 3 });
      expect(first.body.pagination).toEqual({ offset: 0, limit: 3, has_more: true });
      expect(first.body.metadata.total_estimate).toBe(4);
      const second = await search('filt', { query: 'nut', sort: 'price', limit: 3, offset: 3 });
      expect(names(second)).toEqual(['Delta nut']);
      expect(second.body.pagination.has_more).toBe(false);
    });
  });

  describe('a collection that does not exist', () => {
    beforeAll(async () => {
      await create({ collection: 'Exists', name: 'Spring pin 4x20' });
    });
    const hint = 'There is no collection "exists": none of your records is in it (collection names are case-sensitive). GET /api/v1/collections lists your collections (GET /api/v1/portal/collections in the portal).';

    it('answers 200 with no results, collection_exists false and a hint naming it, by POST and GET alike', async () => {
      for (const res of [await search('exists', { query: 'pin' }), await t.search.get('/search/exists?q=pin')]) {
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual([]);
        expect(res.body.metadata).toMatchObject({ collection_exists: false, hint });
      }
    });

    it('says the same in the compact and yaml formats', async () => {
      expect((await search('exists', { query: 'pin', format: 'compact' })).text).toContain(`No results. ${hint}`);
      expect((await search('exists', { query: 'pin', format: 'yaml' })).text).toBe(`# ${hint}\n[]\n`);
    });

    it('says collection_exists true when the collection exists and nothing matched, and nothing of it when something did', async () => {
      const none = await search('Exists', { query: 'hammer' });
      expect(none.body.results).toEqual([]);
      expect(none.body.metadata.collection_exists).toBe(true);
      expect(none.body.metadata.hint).toBeUndefined();
      const found = await search('Exists', { query: 'pin' });
      expect(found.body.results).toHaveLength(1);
      expect(found.body.metadata).not.toHaveProperty('collection_exists');
    });

    it('counts only collections of the caller: another tenant\u2019s is none of theirs', async () => {
      const other = await sys.tenant();
      expect((await other.search.post('/search/Exists', { query: 'pin' })).body.metadata.collection_exists).toBe(false);
    });

    it('forgets that a collection did not exist once its first record is in it', async () => {
      expect((await search('later', { query: 'clip' })).body.metadata.collection_exists).toBe(false);
      await create({ collection: 'later', name: 'Retaining clip' });
      const res = await search('later', { query: 'clip' });
      expect(names(res)).toEqual(['Retaining clip']);
      expect(res.body.metadata).not.toHaveProperty('collection_exists');
    });
  });

  describe('the response cache', () => {
    it('answers a repeated identical search from the cache and forgets it when the collection changes', async () => {
      await create({ collection: 'cache', name: 'Lock washer M8' });
      const first = await search('cache', { query: 'washer' });
      expect(first.body.metadata.cache_hit).toBe(false);
      const second = await search('cache', { query: 'washer' });
      expect(second.body.metadata.cache_hit).toBe(true);
      expect(second.body.results).toEqual(first.body.results);

      await create({ collection: 'cache', name: 'Fender washer M8' });
      const third = await search('cache', { query: 'washer' });
      expect(third.body.metadata.cache_hit).toBe(false);
      expect(names(third).sort()).toEqual(['Fender washer M8', 'Lock washer M8']);
    });

    it('marks only the metadata of a cached answer, never a data field of the same name', async () => {
      await create({ collection: 'cache3', name: 'Cache named pin', collection_data: { cache_hit: false, processing_time_ms: 7 } });
      await search('cache3', { query: 'pin' });
      const res = await search('cache3', { query: 'pin' });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.metadata).toMatchObject({ cache_hit: true, processing_time_ms: expect.any(Number) });
      expect(res.body.results[0].collection_data).toEqual({ cache_hit: false, processing_time_ms: 7 });
    });

    it('keeps tenants apart in the cache', async () => {
      const other = await sys.tenant();
      await create({ collection: 'cache2', name: 'Tenant one dowel' });
      await search('cache2', { query: 'dowel' });
      const res = await other.search.post('/search/cache2', { query: 'dowel' });
      expect(res.body.results).toEqual([]);
      expect(res.body.metadata.cache_hit).toBe(false);
    });
  });

  describe('bad input', () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['a limit of 0', { query: 'x', limit: 0 }, ['body', 'limit']],
      ['a limit of 101', { query: 'x', limit: 101 }, ['body', 'limit']],
      ['a negative offset', { query: 'x', offset: -1 }, ['body', 'offset']],
      ['a 501-character query', { query: 'a'.repeat(501) }, ['body', 'query']],
      ['an empty query', { query: '' }, ['body', 'query']],
      ['an unknown format', { query: 'x', format: 'xml' }, ['body', 'format']],
      ['21 filters', { filters: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i])) }, ['body', 'filters']],
      ['a filter value that is an object', { filters: { material: { eq: 'steel' } } }, ['body', 'filters', 'material']],
      ['a range filter on text', { filters: { price_min: 'cheap' } }, ['body', 'filters', 'price_min']],
      ['neither query nor filters', {}, ['body', 'query']],
      ['a string limit', { query: 'x', limit: '10' }, ['body', 'limit']],
      ['an unknown field', { query: 'x', colour: 'red' }, ['body', 'colour']],
    ];
    it.each(cases)('answers 422 naming the problem for %s', async (_what, body, loc) => {
      const res = await search('shape', body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: expect.arrayContaining(loc), msg: expect.any(String), type: expect.any(String) });
    });

    it('accepts exactly 20 filters and a 500-character query', async () => {
      const filters = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, i]));
      expect((await search('shape', { filters })).status).toBe(200);
      expect((await search('shape', { query: 'a'.repeat(500) })).status).toBe(200);
    });

    it('answers 422 for a collection name the API cannot hold and 403 without the search scope', async () => {
      expect((await search('x'.repeat(51), { query: 'x' })).status).toBe(422);
      expect((await t.searchWithoutScope.post('/search/shape', { query: 'x' })).status).toBe(403);
    });
  });

  describe('aggregation', () => {
    beforeAll(async () => {
      for (const [name, price, material] of [
        ['Agg one', 1, 'steel'],
        ['Agg two', 3, 'steel'],
        ['Agg three', 5, 'brass'],
      ] as const) {
        await create({ collection: 'agg', name, collection_data: { price, material } });
      }
    });

    it('answers total, top groups and numeric stats', async () => {
      const res = await t.search.post('/aggregate', { collection: 'agg', group_by: 'material', stats: ['price'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        total: 3,
        groups: [
          { value: 'steel', count: 2 },
          { value: 'brass', count: 1 },
        ],
        stats: { price: { count: 3, min: 1, max: 5, avg: 3 } },
      });
      const filtered = await t.search.post('/aggregate', { collection: 'agg', filters: { material: 'steel' }, stats: ['price'] });
      expect(filtered.body).toMatchObject({ total: 2, stats: { price: { min: 1, max: 3, avg: 2 } } });
    });

    it('answers 422 for more than 5 stats fields or a missing collection', async () => {
      expect((await t.search.post('/aggregate', { collection: 'agg', stats: ['a', 'b', 'c', 'd', 'e', 'f'] })).status).toBe(422);
      expect((await t.search.post('/aggregate', { group_by: 'material' })).status).toBe(422);
    });
  });

  describe('search health', () => {
    it('reports latency percentiles, the zero-result rate and the fallback count of recent searches', async () => {
      await search('shape', { query: 'nothing-matches-this-query-zzz' });
      const res = await t.search.get('/health/search');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'ok',
        latency_ms: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) },
        zero_result_rate: expect.any(Number),
        fallback_count: expect.any(Number),
      });
      expect(res.body.zero_result_rate).toBeGreaterThan(0);
      expect(res.body.fallback_count).toBeGreaterThanOrEqual(1);
      expect(res.body.window.searches).toBeGreaterThan(5);
    });

    inProcess('exports search latency by mode as a Prometheus histogram', async () => {
      const res = await t.search.get('/metrics');
      expect(res.text).toMatch(/trove_search_duration_seconds_bucket\{[^}]*mode="fulltext"/);
    });
  });
}
