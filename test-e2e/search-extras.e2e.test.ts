import { randomUUID } from 'node:crypto';
import { portalAuth, signUp } from './support/portal';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

/**
 * What a search adds to its answer when asked (docs/behaviour/search.md, "Highlights" and "Facets"), through the
 * gateway: private search with a key and in the portal, the Open API and MCP's trove_search.
 */
const trove = useTrove();
const api = trove.api;
let admin: string;
/** A collection name of this run, so the public index holds no one else's records under it. */
const collection = `fasteners-${randomUUID().slice(0, 8)}`;

const records = [
  { name: 'Hex bolt M8 <zinc>', description: 'A galvanised bolt & washer set', collection_data: { brand: 'Acme', price: 10, tags: ['m8', 'zinc'] } },
  { name: 'Hex bolt M10', description: 'Stainless', collection_data: { brand: 'Acme', price: 20, tags: ['m10'] } },
  { name: 'Carriage bolt M8', description: 'Round head', collection_data: { brand: 'Bolton', price: 30, tags: ['m8'] } },
  { name: 'Wing nut M8', description: 'For hand tightening', collection_data: { brand: 'Acme', price: 1, tags: ['m8'] } },
];

beforeAll(async () => {
  admin = await trove.keyFor(randomUUID(), ['admin']);
  for (const r of records) {
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(admin),
      body: { ...r, collection, record_type: 'product', visibility: 'public' },
    });
    expect(created.status).toBe(201);
  }
});

const search = (body: unknown, path = `/api/v1/search/${collection}`) => api('POST', path, { headers: bearer(admin), body });

describe('highlights', () => {
  it('tags each result’s matches, escaped, only when asked', async () => {
    const res = await search({ query: 'hex bolt', highlight: true });
    expect(res.status).toBe(200);
    const first = res.body.results.find((r: { name: string }) => r.name.startsWith('Hex bolt M8'));
    expect(first.highlights).toEqual({
      name: '<mark>Hex</mark> <mark>bolt</mark> M8 &lt;zinc&gt;',
      description: 'A galvanised <mark>bolt</mark> &amp; washer set',
    });
    const plain = await search({ query: 'hex bolt' });
    expect(plain.body.results.every((r: object) => !('highlights' in r))).toBe(true);
    // A different request, so not the cached answer of the other.
    const tagged = await search({ query: 'hex bolt', highlight: { pre_tag: '**', post_tag: '**' } });
    expect(tagged.body.results[0].highlights.name).toMatch(/^\*\*Hex\*\* \*\*bolt\*\*/);
  });

  it('refuses tags that are not strings of 1-100 characters, naming the field', async () => {
    for (const highlight of [{ pre_tag: '' }, { pre_tag: 'x'.repeat(101) }, 'yes', { pre_tag: '<b>', colour: 'red' }]) {
      const res = await search({ query: 'bolt', highlight });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'highlight']);
    }
  });
});

describe('facets', () => {
  it('counts values over every match of the query and filters, not just the page, as the aggregate endpoint does', async () => {
    const res = await search({ query: 'bolt', filters: { price_max: 25 }, limit: 1, facets: ['brand', 'price', 'tags', 'colour'] });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.metadata.total_estimate).toBe(2);
    expect(res.body.facets).toEqual({
      brand: { values: [{ value: 'Acme', count: 2 }] },
      price: { values: [{ value: 10, count: 1 }, { value: 20, count: 1 }], stats: { count: 2, min: 10, max: 20, avg: 15 } },
      tags: { values: [{ value: 'm10', count: 1 }, { value: 'm8', count: 1 }, { value: 'zinc', count: 1 }] },
      colour: { values: [] },
    });
    // Facets come before metadata in the answer, which ends with it.
    expect(Object.keys(res.body)).toEqual(['results', 'pagination', 'facets', 'metadata']);

    const filters = { tags: 'm8' };
    const faceted = await search({ filters, facets: ['brand'] });
    const aggregated = await api('POST', '/api/v1/aggregate', { headers: bearer(admin), body: { collection, filters, group_by: 'brand', stats: ['price'] } });
    expect(aggregated.status).toBe(200);
    expect(faceted.body.facets.brand.values).toEqual(aggregated.body.groups);
    expect(aggregated.body.groups).toEqual([
      { value: 'Acme', count: 2 },
      { value: 'Bolton', count: 1 },
    ]);
    const withStats = await search({ filters, facets: ['price'], facet_limit: 1 });
    expect(withStats.body.facets.price).toEqual({ values: [{ value: 1, count: 1 }], stats: aggregated.body.stats.price });
  });

  it('refuses more than 10 facets or a facet_limit past 100, and answers no facets unless asked', async () => {
    const many = await search({ query: 'bolt', facets: Array.from({ length: 11 }, (_, i) => `f${i}`) });
    expect(many.status).toBe(422);
    expect(many.body.detail[0].loc).toEqual(['body', 'facets']);
    const deep = await search({ query: 'bolt', facets: ['brand'], facet_limit: 101 });
    expect(deep.status).toBe(422);
    expect(deep.body.detail[0].loc).toEqual(['body', 'facet_limit']);
    expect('facets' in (await search({ query: 'bolt' })).body).toBe(false);
  });
});

describe('in every way to search', () => {
  it('answers highlights and facets in the portal, the Open API and MCP', async () => {
    const person = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(person.token), body: { name: 'records', scopes: ['records'] } });
    expect(key.status).toBe(201);
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(key.body.key),
      body: { name: 'Hex bolt M12', collection: 'parts', record_type: 'product', collection_data: { brand: 'Acme' } },
    });
    expect(created.status).toBe(201);
    const portal = await api('POST', '/api/v1/portal/search/parts', {
      headers: portalAuth(person.token),
      body: { query: 'hex', highlight: true, facets: ['brand'] },
    });
    expect(portal.status).toBe(200);
    expect(portal.body.results[0].highlights).toEqual({ name: '<mark>Hex</mark> bolt M12' });
    expect(portal.body.facets).toEqual({ brand: { values: [{ value: 'Acme', count: 1 }] } });

    const open = await api('POST', `/open/v1/search/${collection}`, { body: { query: 'carriage', highlight: true, facets: ['brand'] } });
    expect(open.status).toBe(200);
    expect(open.body.results[0].highlights).toEqual({ name: '<mark>Carriage</mark> bolt M8' });
    expect(open.body.facets).toEqual({ brand: { values: [{ value: 'Bolton', count: 1 }] } });
    const openAll = await api('POST', '/open/v1/search', { body: { query: 'wing nut', collection, facets: ['collection'] } });
    expect(openAll.body.facets).toEqual({ collection: { values: [{ value: collection, count: 1 }] } });

    const mcp = await fetch(`${trove.baseUrl}/mcp/`, {
      method: 'POST',
      headers: { ...bearer(admin), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'trove_search', arguments: { collection, query: 'bolt', facets: ['brand', 'price'] } },
      }),
    });
    const text = JSON.parse(/^data: (.*)$/m.exec(await mcp.text())![1]!).result.content[0].text as string;
    expect(text).toContain('Facets (over every match):');
    expect(text).toContain('- brand: Acme (2), Bolton (1)');
    expect(text).toContain('- price: 10 (1), 20 (1), 30 (1); numbers: min 10, max 30, average 20 over 3');
  });
});
