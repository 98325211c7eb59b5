import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sql } from '@trove/db';
import { product, startSystem, type System } from './helpers';

let sys: System;
let a: ReturnType<System['tenant']>;
let b: ReturnType<System['tenant']>;
let open: ReturnType<System['client']>;

// Limits high enough that this file never meets them; rate-limit.test.ts tests them.
beforeAll(async () => {
  sys = await startSystem({ OPEN_SEARCH_LIMIT_PER_MINUTE: '100000', OPEN_LOOKUP_LIMIT_PER_MINUTE: '100000' });
  a = sys.tenant();
  b = sys.tenant();
  open = sys.client();
});
afterAll(() => sys.stop());

async function create(t: ReturnType<System['tenant']>, overrides: Record<string, unknown> = {}) {
  const res = await t.records.post('/records', product(overrides));
  expect(res.status).toBe(201);
  expect(res.body.indexing_status).toBe('indexed');
  return res.body as { id: string };
}
const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((r) => r.name).sort();

const ITEM_KEYS = ['collection', 'collection_data', 'description_llm', 'name', 'record_id', 'record_type', 'score', 'source_type', 'updated_at'];

describe('search', () => {
  beforeAll(async () => {
    await create(a, { collection: 'valves', name: 'Ball valve brass DN15', collection_data: { material: 'brass', size: 15, pressure: 'PN40' } });
    await create(a, { collection: 'valves', name: 'Ball valve steel DN20', collection_data: { material: 'steel', size: 20 } });
    await create(b, { collection: 'valves', name: 'Ball valve brass DN25', collection_data: { material: 'brass', size: 25 } });
    await create(b, { collection: 'valves', name: 'Ball valve private DN32', visibility: 'private', collection_data: { material: 'brass', size: 32 } });
    await create(b, { collection: 'valves', name: 'Ball valve draft DN40', status: 'draft' });
    await create(b, { collection: 'pumps', name: 'Ball valve pump accessory', record_type: 'accessory' });
  });

  it('answers public records of two tenants together, in the documented shape, and hides private ones', async () => {
    const res = await open.post('/search/valves', { query: 'ball valve' });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Ball valve brass DN15', 'Ball valve brass DN25', 'Ball valve steel DN20']);
    expect(Object.keys(res.body).sort()).toEqual(['metadata', 'pagination', 'results']);
    for (const item of res.body.results) {
      expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      expect(item.score).toBeGreaterThan(0);
      expect(item.score).toBeLessThanOrEqual(1);
    }
    expect(res.body.results[0]).toMatchObject({ collection: 'valves', record_type: 'product', source_type: 'api', description_llm: expect.any(String) });
    expect(res.body.pagination).toEqual({ offset: 0, limit: 10, has_more: false });
    expect(res.body.metadata).toEqual({ search_mode: 'fulltext', processing_time_ms: expect.any(Number), total_estimate: 3, total_is_estimate: false, cache_hit: false });
  });

  it('says when a collection searched has no public record, and when it has some but none matched', async () => {
    const hint = 'No public record is in a collection "Valves" (collection names are case-sensitive); GET /open/v1/collections lists the collections with public records.';
    for (const res of [await open.post('/search/Valves', { query: 'ball valve' }), await open.get('/search?q=ball&collection=Valves'), await open.get('/search/Valves')]) {
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([]);
      expect(res.body.metadata).toMatchObject({ collection_exists: false, hint });
    }
    // A collection whose records are all private has no public one.
    await create(b, { collection: 'hidden', name: 'Private gasket', visibility: 'private' });
    expect((await open.post('/search/hidden', { query: 'gasket' })).body.metadata.collection_exists).toBe(false);
    const none = await open.post('/search/valves', { query: 'hammer' });
    expect(none.body.metadata).toMatchObject({ collection_exists: true });
    expect(none.body.metadata.hint).toBeUndefined();
    // Across every collection there is no collection to speak of.
    expect((await open.post('/search', { query: 'hammer' })).body.metadata).not.toHaveProperty('collection_exists');
  });

  it('searches every collection with POST /search and one with its collection field', async () => {
    expect(names(await open.post('/search', { query: 'ball valve' }))).toEqual([
      'Ball valve brass DN15',
      'Ball valve brass DN25',
      'Ball valve pump accessory',
      'Ball valve steel DN20',
    ]);
    expect(names(await open.post('/search', { query: 'ball valve', collection: 'pumps' }))).toEqual(['Ball valve pump accessory']);
  });

  it('answers the GET forms with q, collection, sort, limit and offset', async () => {
    const res = await open.get('/search?q=ball%20valve&collection=valves&sort=-size&limit=2&offset=0');
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { name: string }) => r.name)).toEqual(['Ball valve brass DN25', 'Ball valve steel DN20']);
    expect(res.body.pagination).toEqual({ offset: 0, limit: 2, has_more: true });
    const next = await open.get('/search/valves?q=ball%20valve&sort=-size&limit=2&offset=2');
    expect(next.body.results.map((r: { name: string }) => r.name)).toEqual(['Ball valve brass DN15']);
    expect(next.body.pagination).toEqual({ offset: 2, limit: 2, has_more: false });
  });

  it('lists a collection by name when q is empty or absent', async () => {
    const res = await open.get('/search/valves');
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { name: string }) => r.name)).toEqual(['Ball valve brass DN15', 'Ball valve brass DN25', 'Ball valve steel DN20']);
    expect((await open.get('/search?q=&collection=valves')).body.metadata.total_estimate).toBe(3);
    expect((await open.post('/search/valves', {})).body.metadata.total_estimate).toBe(3);
  });

  it('applies filters as private search does, several values included', async () => {
    expect(names(await open.post('/search/valves', { filters: { material: 'brass' } }))).toEqual(['Ball valve brass DN15', 'Ball valve brass DN25']);
    expect(names(await open.post('/search', { query: 'valve', filters: { material: ['steel', 'brass'], size_min: 18 } }))).toEqual([
      'Ball valve brass DN25',
      'Ball valve steel DN20',
    ]);
    expect(names(await open.post('/search/valves', { filters: { material_in: 'steel,brass', size_lt: 18 } }))).toEqual(['Ball valve brass DN15']);
  });

  it('finds an identifier with score 1', async () => {
    const { id } = await create(a, { collection: 'ids', name: 'Washer with EAN', collection_data: { ean: '4006381333931' } });
    const res = await open.post('/search/ids', { query: '4006381333931' });
    expect(res.body.results).toEqual([expect.objectContaining({ record_id: id, score: 1 })]);
    expect(res.body.metadata.search_mode).toBe('fulltext');
  });

  it.each([
    [{ query: 'x'.repeat(501) }, ['body', 'query'], 'string_too_long'],
    [{ query: '   ' }, ['body', 'query'], 'string_too_short'],
    [{ query: 'a', limit: 51 }, ['body', 'limit'], 'less_than_equal'],
    [{ query: 'a', limit: 0 }, ['body', 'limit'], 'greater_than_equal'],
    [{ query: 'a', offset: -1 }, ['body', 'offset'], 'greater_than_equal'],
    [{ query: 'a', format: 'yaml' }, ['body', 'format'], 'extra_forbidden'],
    [{ query: 'a', collection: 'bad name!' }, ['body', 'collection'], 'string_pattern_mismatch'],
    [{ filters: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i])) }, ['body', 'filters'], 'value_error'],
    [{ filters: { size_min: 'big' } }, ['body', 'filters', 'size_min'], 'float_parsing'],
    [{ filters: { material: { nested: 1 } } }, ['body', 'filters', 'material'], 'union_tag_invalid'],
  ])('refuses %j with 422 at %j', async (body, loc, type) => {
    const res = await open.post('/search', body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc, type });
  });

  it('refuses a bad query string, a bad path and malformed JSON with 422', async () => {
    expect((await open.get('/search?q=a&limit=51')).body.detail[0]).toMatchObject({ loc: ['query', 'limit'] });
    expect((await open.get('/search?q=a&limit=ten')).status).toBe(422);
    expect((await open.get(`/search/${'c'.repeat(51)}?q=a`)).body.detail[0]).toMatchObject({ loc: ['path', 'collection'] });
    expect((await open.post('/search/valves', { query: 'a', collection: 'valves' })).body.detail[0]).toMatchObject({ loc: ['body', 'collection'], type: 'extra_forbidden' });
    const bad = await request(sys.open.instance.app).post('/search').set(sys.open.as(randomUUID(), [])).set('content-type', 'application/json').send('{"query":');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: 'json_invalid' });
    expect(bad.headers['x-ratelimit-limit']).toBe('100000');
  });
});

describe('visibility is checked when records are loaded', () => {
  it('hides a record made private at once, in search and lookup', async () => {
    const { id } = await create(a, { collection: 'flip', name: 'Flip flange DN50' });
    expect(names(await open.post('/search/flip', { query: 'flange' }))).toEqual(['Flip flange DN50']);
    expect((await open.get(`/records/${id}`)).status).toBe(200);

    expect((await a.records.patch(`/records/${id}/visibility`, { visibility: 'private' })).status).toBe(200);
    expect((await open.post('/search/flip', { query: 'flange' })).body.results).toEqual([]);
    expect((await open.get(`/records/${id}`)).status).toBe(404);

    await a.records.patch(`/records/${id}/visibility`, { visibility: 'public' });
    expect(names(await open.post('/search/flip', { query: 'flange' }))).toEqual(['Flip flange DN50']);
  });

  it('hides a record the index still holds as public once the system of record says private', async () => {
    const { id } = await create(a, { collection: 'lag', name: 'Lagging gasket A' });
    await create(b, { collection: 'lag', name: 'Lagging gasket B' });
    // Behind the index's back, as if its consumer were far behind.
    await sql`update records.records set visibility = 'private' where id = ${id}`.execute(sys.db.database.db);
    const res = await open.post('/search/lag', { query: 'lagging gasket' });
    expect(names(res)).toEqual(['Lagging gasket B']);
    expect(res.body.metadata.total_estimate).toBe(1);
    expect((await open.get(`/records/${id}`)).status).toBe(404);
  });

  it('hides archived records', async () => {
    const { id } = await create(a, { collection: 'gone', name: 'Archived spacer' });
    await a.records.delete(`/records/${id}`);
    expect((await open.post('/search/gone', { query: 'spacer' })).body.results).toEqual([]);
    expect((await open.get(`/records/${id}`)).status).toBe(404);
  });
});

describe('GET /records/{record_id}', () => {
  it('answers the full public record', async () => {
    const { id } = await create(a, { collection: 'lookup', name: 'Lookup nut', source_id: 'N-1', source_url: 'https://example.com/n1' });
    const res = await open.get(`/records/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      name: 'Lookup nut',
      description: 'Fully threaded hexagon head bolt',
      description_llm: expect.any(String),
      collection: 'lookup',
      record_type: 'product',
      collection_data: product().collection_data,
      indexing_status: 'indexed',
      status: 'active',
      visibility: 'public',
      generation: 1,
      source_name: null,
      source_id: 'N-1',
      source_url: 'https://example.com/n1',
      source_type: 'api',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('answers a private and a missing record with the same 404', async () => {
    const { id } = await create(b, { collection: 'lookup', name: 'Private nut', visibility: 'private' });
    const privateRes = await open.get(`/records/${id}`);
    const missingRes = await open.get(`/records/${randomUUID()}`);
    expect(privateRes.status).toBe(404);
    expect(missingRes.status).toBe(404);
    expect(privateRes.body).toEqual(missingRes.body);
    expect(privateRes.body).toEqual({ detail: 'Record not found' });
  });

  it('refuses an id that is not a UUID with 422', async () => {
    const res = await open.get('/records/not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['path', 'record_id'], type: 'uuid_parsing' });
  });
});

describe('collections and schema', () => {
  beforeAll(async () => {
    await create(a, { collection: 'cables', name: 'Cable NYM 3x1.5', record_type: 'cable', collection_data: { cores: 3, section: 1.5, colour: 'grey' } });
    await create(b, { collection: 'cables', name: 'Cable NYM 5x2.5', record_type: 'cable', collection_data: { cores: 5, section: 2.5, colour: 'grey', tags: ['indoor', 'pvc'] } });
    await create(b, { collection: 'cables', name: 'Cable datasheet', record_type: 'datasheet', collection_data: { released: '2024-05-01' } });
    await create(b, { collection: 'cables', name: 'Cable private', record_type: 'secret', visibility: 'private' });
    await create(a, { collection: 'hidden-only', name: 'Nobody sees me', visibility: 'private' });
  });

  it('lists collections grouped by name across tenants with public counts and record types', async () => {
    const res = await open.get('/collections');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const cables = res.body.find((c: { collection: string }) => c.collection === 'cables');
    expect(cables).toEqual({ collection: 'cables', record_types: ['cable', 'datasheet'], record_count: 3, description: expect.stringContaining('cables') });
    expect(Object.keys(cables).sort()).toEqual(['collection', 'description', 'record_count', 'record_types']);
    expect(res.body.map((c: { collection: string }) => c.collection)).not.toContain('hidden-only');
  });

  it('filters collections by a substring of the name or the description', async () => {
    expect((await open.get('/collections?q=CABL')).body.map((c: { collection: string }) => c.collection)).toEqual(['cables']);
    // "datasheet" is a record type, named in the generated description.
    expect((await open.get('/collections?q=datasheet')).body.map((c: { collection: string }) => c.collection)).toEqual(['cables']);
    expect((await open.get('/collections?q=nothing-like-this')).body).toEqual([]);
  });

  it('describes a collection schema with its filterable fields', async () => {
    const res = await open.get('/collections/cables/schema');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      collection: 'cables',
      record_types: ['cable', 'datasheet'],
      record_count: 3,
      description: expect.any(String),
      filterable_fields: expect.any(Array),
    });
    expect(res.body.filterable_fields).toEqual(
      expect.arrayContaining(['colour (string): grey', 'cores (number): 3, 5', 'section (number): 1.5, 2.5', 'tags (string[]): indoor, pvc', 'released (date): 2024-05-01']),
    );
  });

  it('answers 404 for an unknown collection and for one without public records', async () => {
    expect((await open.get('/collections/no-such-collection/schema')).status).toBe(404);
    const hidden = await open.get('/collections/hidden-only/schema');
    expect(hidden.status).toBe(404);
    expect(hidden.body.detail).toEqual(expect.any(String));
    expect((await open.get('/collections/bad!name/schema')).status).toBe(422);
  });
});

describe('POST /aggregate', () => {
  beforeAll(async () => {
    await create(a, { collection: 'agg', name: 'Agg 1', collection_data: { colour: 'red', weight: 1 } });
    await create(a, { collection: 'agg', name: 'Agg 2', collection_data: { colour: 'red', weight: 3 } });
    await create(b, { collection: 'agg', name: 'Agg 3', collection_data: { colour: 'blue', weight: 5 } });
    await create(b, { collection: 'agg', name: 'Agg 4', visibility: 'private', collection_data: { colour: 'blue', weight: 100 } });
  });

  it('answers total, groups and stats over public records of every tenant', async () => {
    const res = await open.post('/aggregate', { collection: 'agg', group_by: 'colour', stats: ['weight'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 3,
      groups: [
        { value: 'red', count: 2 },
        { value: 'blue', count: 1 },
      ],
      stats: { weight: { count: 3, min: 1, max: 5, avg: 3 } },
    });
    expect((await open.post('/aggregate', { collection: 'agg', filters: { colour: 'red' } })).body).toEqual({ total: 2, groups: [], stats: {} });
  });

  it('refuses more than 5 stats fields and unknown fields with 422', async () => {
    expect((await open.post('/aggregate', { stats: ['a', 'b', 'c', 'd', 'e', 'f'] })).body.detail[0]).toMatchObject({ loc: ['body', 'stats'], type: 'too_long' });
    expect((await open.post('/aggregate', { group: 'colour' })).body.detail[0]).toMatchObject({ loc: ['body', 'group'], type: 'extra_forbidden' });
  });
});

describe('rate-limit headers', () => {
  it('come with every answer: 200, 404, 422 and an unknown path', async () => {
    const answers = await Promise.all([
      open.get('/collections'),
      open.get(`/records/${randomUUID()}`),
      open.post('/search', { limit: 0 }),
      open.get('/no/such/path'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 404, 422, 404]);
    for (const r of answers) {
      expect(r.headers['x-ratelimit-limit']).toBe('100000');
      expect(Number(r.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
      expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
    }
  });
});

describe('open search analytics', () => {
  it('counts searches per tenant collection that they surfaced', async () => {
    await create(a, { collection: 'stats-a', name: 'Counted clamp' });
    await create(b, { collection: 'stats-b', name: 'Counted clamp too' });
    await open.post('/search', { query: 'counted clamp' });
    await open.get('/search/stats-a?q=counted');
    const counts = (tenant: string) =>
      request(sys.open.instance.app).get(`/internal/open/search-counts?tenant_id=${tenant}`).set(sys.open.as(randomUUID(), [], undefined, 'auth'));
    const ofA = await counts(a.id);
    expect(ofA.status).toBe(200);
    expect(ofA.body).toMatchObject({ tenant_id: a.id, period: new Date().toISOString().slice(0, 7) });
    expect(ofA.body.collections).toEqual(expect.arrayContaining([{ collection: 'stats-a', open_searches: 2 }]));
    expect((await counts(b.id)).body.collections).toEqual(expect.arrayContaining([{ collection: 'stats-b', open_searches: 1 }]));
    expect((await counts(randomUUID())).body).toMatchObject({ total_open_searches: 0, collections: [] });
  });
});
