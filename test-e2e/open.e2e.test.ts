import { randomUUID } from 'node:crypto';
import { bearer, useTrove, type ApiResponse } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove({ env: { OPEN_SEARCH_LIMIT_PER_MINUTE: '30' } });
const api = trove.api;
let keyA: string;
let keyB: string;

async function create(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await api('POST', '/api/v1/records', { headers: bearer(key), body: { collection: 'open-e2e', record_type: 'product', ...body } });
  expect(res.status).toBe(201);
  expect(res.body.indexing_status).toBe('indexed');
  return res.body.id;
}

function expectRateHeaders(res: ApiResponse, limit: string) {
  expect(res.headers.get('x-ratelimit-limit')).toBe(limit);
  expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
}

const names = (res: ApiResponse) => res.body.results.map((r: { name: string }) => r.name).sort();

beforeAll(async () => {
  keyA = await trove.keyFor(randomUUID(), ['admin']);
  keyB = await trove.keyFor(randomUUID(), ['admin']);
});

describe('the Open API through the gateway, without a key', () => {
  let privateId: string;
  let flipId: string;

  beforeAll(async () => {
    await create(keyA, { name: 'Open gate valve A', visibility: 'public', collection_data: { size: 15 } });
    flipId = await create(keyB, { name: 'Open gate valve B', visibility: 'public', collection_data: { size: 20 } });
    privateId = await create(keyB, { name: 'Open gate valve private', collection_data: { size: 25 } });
  });

  it('shows public records of two tenants together and hides the private one', async () => {
    const res = await api('GET', '/open/v1/search?q=open%20gate%20valve');
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Open gate valve A', 'Open gate valve B']);
    expect(res.body.metadata).toEqual({ search_mode: 'fulltext', processing_time_ms: expect.any(Number), total_estimate: 2, total_is_estimate: false, cache_hit: expect.any(Boolean) });
    expectRateHeaders(res, '30');

    const post = await api('POST', '/open/v1/search/open-e2e', { body: { query: 'gate valve', filters: { size_min: 10 } } });
    expect(names(post)).toEqual(['Open gate valve A', 'Open gate valve B']);
  });

  it('answers collections, schema, aggregate and record lookup with the headers', async () => {
    const collections = await api('GET', '/open/v1/collections?q=open-e2e');
    expect(collections.body).toEqual([{ collection: 'open-e2e', record_types: ['product'], record_count: 2, description: expect.any(String) }]);
    expectRateHeaders(collections, '120');
    const schema = await api('GET', '/open/v1/collections/open-e2e/schema');
    expect(schema.body.filterable_fields).toEqual(['size (number): 15, 20']);
    const agg = await api('POST', '/open/v1/aggregate', { body: { collection: 'open-e2e', stats: ['size'] } });
    expect(agg.body).toEqual({ total: 2, groups: [], stats: { size: { count: 2, min: 15, max: 20, avg: 17.5 } } });
    expectRateHeaders(agg, '30');

    const missing = await api('GET', `/open/v1/records/${randomUUID()}`);
    const hidden = await api('GET', `/open/v1/records/${privateId}`);
    expect([missing.status, hidden.status]).toEqual([404, 404]);
    expect(hidden.body).toEqual(missing.body);
    expectRateHeaders(hidden, '120');
  });

  it('hides a record the moment it is made private', async () => {
    expect((await api('GET', `/open/v1/records/${flipId}`)).status).toBe(200);
    const patched = await api('PATCH', `/api/v1/records/${flipId}/visibility`, { headers: bearer(keyB), body: { visibility: 'private' } });
    expect(patched.status).toBe(200);
    expect(names(await api('GET', '/open/v1/search?q=open%20gate%20valve'))).toEqual(['Open gate valve A']);
    expect((await api('GET', `/open/v1/records/${flipId}`)).status).toBe(404);
  });

  it('answers 429 past the per-IP search limit, with Retry-After and the headers', async () => {
    // The test client reaches the gateway over loopback, a trusted hop, so the address it forwards is believed.
    const from = { 'x-forwarded-for': '198.51.100.77' };
    let last: ApiResponse | undefined;
    for (let i = 0; i < 31; i++) last = await api('POST', '/open/v1/aggregate', { headers: from, body: {} });
    expect(last!.status).toBe(429);
    expect(last!.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expectRateHeaders(last!, '30');
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    // Other addresses keep their own allowance.
    expect((await api('POST', '/open/v1/aggregate', { body: {} })).status).toBe(200);
  });
});
