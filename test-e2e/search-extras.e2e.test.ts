import { randomUUID } from 'node:crypto';
import { eventually } from '@trove/testing';
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

/** The text MCP's trove_search answers these arguments with, called as a Streamable HTTP client does. */
async function mcpSearch(args: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${trove.baseUrl}/mcp/`, {
    method: 'POST',
    headers: { ...bearer(admin), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trove_search', arguments: args } }),
  });
  return JSON.parse(/^data: (.*)$/m.exec(await res.text())![1]!).result.content[0].text as string;
}

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

describe('explain', () => {
  it('says why each result ranked where it did, its parts adding up to its score, in private search and the Open API', async () => {
    const res = await search({ query: 'hex bolt', explain: true });
    expect(res.status).toBe(200);
    for (const r of res.body.results) {
      const { score } = r.ranking;
      expect(score.total).toBe(r.score);
      const summed = (score.name_bonus ?? 0) + Object.values(score.parts as Record<string, { share: number; weight: number }>).reduce((a, p) => a + p.share * p.weight, 0);
      expect(Math.abs(summed - r.score)).toBeLessThan(0.001);
    }
    expect(res.body.results[0].ranking).toMatchObject({ matched_by: 'text', phrases: ['hex bolt'], score: { name: 'starts_with', name_bonus: 0.8 } });
    const open = await api('POST', `/open/v1/search/${collection}`, { body: { query: 'carriage', explain: true } });
    expect(open.body.results[0].ranking.terms).toEqual([{ term: 'carriage', matches: [{ field: 'name', word: 'Carriage', as: 'typed' }] }]);
    expect((await search({ query: 'hex bolt', explain: 'yes' })).status).toBe(422);
    expect('ranking' in (await search({ query: 'hex bolt' })).body.results[0]).toBe(false);
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

describe('multi-search', () => {
  const multi = (body: unknown, key = admin) => api('POST', '/api/v1/multi-search', { headers: bearer(key), body });
  let nuts: string;

  beforeAll(async () => {
    nuts = `nuts-${randomUUID().slice(0, 8)}`;
    for (const name of ['Hex nut M8', 'Hex nut M10', 'Cap nut M8']) {
      const created = await api('POST', '/api/v1/records', { headers: bearer(admin), body: { name, collection: nuts, record_type: 'product', collection_data: { brand: 'Nutco' } } });
      expect(created.status).toBe(201);
    }
  });

  it('answers each query as its own search would, in order', async () => {
    const queries = [
      { collection, query: 'hex bolt', limit: 1 },
      { collection: nuts, query: 'hex', facets: ['brand'] },
    ];
    const res = await multi({ queries });
    expect(res.status).toBe(200);
    const alone = await Promise.all(queries.map(({ collection: c, ...body }) => search(body, `/api/v1/search/${c}`)));
    expect(res.body.results).toHaveLength(2);
    res.body.results.forEach((answer: any, i: number) => {
      expect(answer.results).toEqual(alone[i]!.body.results);
      expect(answer.metadata.total_estimate).toBe(alone[i]!.body.metadata.total_estimate);
    });
    expect(res.body.results[1].facets).toEqual({ brand: { values: [{ value: 'Nutco', count: 2 }] } });
  });

  it('merges every query’s matches into one list by score with federation, each result saying its collection and query', async () => {
    const res = await multi({
      queries: [
        { collection, query: 'hex' },
        { collection: nuts, query: 'hex nut m8' },
      ],
      federation: { limit: 3 },
    });
    expect(res.status).toBe(200);
    const { results, pagination, metadata } = res.body;
    expect(results).toHaveLength(3);
    // The name equal to the query ranks first wherever it is; the rest follow by score.
    expect(results[0]).toMatchObject({ name: 'Hex nut M8', collection: nuts, query_index: 1 });
    const scores = results.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(metadata.queries).toEqual([
      { collection, search_mode: 'fulltext', total_estimate: 2, total_is_estimate: false },
      { collection: nuts, search_mode: 'fulltext', total_estimate: 1, total_is_estimate: false },
    ]);
    expect(metadata.total_estimate).toBe(3);
    expect(pagination).toEqual({ offset: 0, limit: 3, has_more: false });
    const next = await multi({ queries: [{ collection, query: 'hex' }, { collection: nuts, query: 'hex nut m8' }], federation: { limit: 2, offset: 1 } });
    expect(next.body.results.map((r: { record_id: string }) => r.record_id)).toEqual(results.slice(1, 3).map((r: { record_id: string }) => r.record_id));
  });

  it('searches several collections as one list through MCP’s trove_search', async () => {
    const text = await mcpSearch({ collection: [collection, nuts], query: 'hex', limit: 3, facets: ['brand'] });
    expect(text).toContain(`Results 1-3 of 4 (${collection}: 2, ${nuts}: 2).`);
    expect(text).toMatch(new RegExp(`\\| Hex nut M10 \\| [0-9.]+ \\| ${nuts} \\|`));
    expect(text).toContain(`Facets of ${nuts} (over every match):`);
    expect(text).toContain('- brand: Nutco (2)');
  });

  it('checks every query before running any, naming the query at fault', async () => {
    const eleven = await multi({ queries: Array.from({ length: 11 }, () => ({ collection, query: 'bolt' })) });
    expect(eleven.status).toBe(422);
    expect(eleven.body.detail[0].loc).toEqual(['body', 'queries']);
    const empty = await multi({ queries: [{ collection, query: 'bolt' }, { collection }] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'queries', '1', 'query']);
    const badFilter = await multi({ queries: [{ collection, filters: { _min: 3 } }] });
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.detail[0].loc).toEqual(['body', 'queries', '0', 'filters', '_min']);
    const format = await multi({ queries: [{ collection, query: 'bolt', format: 'yaml' }] });
    expect(format.status).toBe(422);
    expect(format.body.detail[0].loc).toEqual(['body', 'queries', '0', 'format']);
    const deep = await multi({ queries: [{ collection, query: 'bolt' }], federation: { limit: 100, offset: 901 } });
    expect(deep.status).toBe(422);
    expect((await api('POST', '/api/v1/multi-search', { body: { queries: [{ collection, query: 'bolt' }] } })).status).toBe(401);
  });

  it('finds nothing in a collection the caller does not have, as a search does, and counts one search per query', async () => {
    const stranger = await trove.keyFor(randomUUID(), ['admin']);
    const res = await multi({ queries: [{ collection, query: 'bolt' }, { collection: 'nothing-here', query: 'bolt' }] }, stranger);
    expect(res.status).toBe(200);
    expect(res.body.results.map((a: any) => [a.results.length, a.metadata.collection_exists])).toEqual([
      [0, false],
      [0, false],
    ]);
    await eventually(async () => {
      const usage = await api('GET', '/api/v1/usage', { headers: bearer(stranger) });
      expect(usage.body.usage.searches).toBe(2);
    });
  });
});

describe('settings', () => {
  const settingsPath = `/api/v1/collections/${collection}/settings`;
  const patch = (body: unknown, key = admin) => api('PATCH', settingsPath, { headers: bearer(key), body });

  it('answers the defaults at version 0, and a change at once: the next search applies it, cached answers included', async () => {
    const fresh = await api('GET', settingsPath, { headers: bearer(admin) });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({
      collection,
      version: 0,
      settings: {
        synonyms: [],
        stop_words: [],
        searchable_fields: null,
        typo_tolerance: { enabled: true, min_word_size_one_typo: 5, min_word_size_two_typos: 9, disable_on_fields: [] },
      },
      updated_at: null,
    });
    const names = async (query: string) => (await search({ query })).body.results.map((r: { name: string }) => r.name).sort();
    expect(await names('screw')).toEqual([]);
    expect(await names('carriage fastener')).toEqual([]);
    const changed = await patch({ synonyms: [['screw', 'bolt'], { input: ['fastener'], synonyms: ['bolt', 'nut'] }] });
    expect(changed.status).toBe(200);
    expect(changed.body.version).toBe(1);
    expect(changed.body.settings.synonyms).toEqual([['screw', 'bolt'], { input: ['fastener'], synonyms: ['bolt', 'nut'] }]);
    expect(await names('screw')).toEqual(['Carriage bolt M8', 'Hex bolt M10', 'Hex bolt M8 <zinc>']);
    expect(await names('carriage fastener')).toEqual(['Carriage bolt M8']);

    // Stop words: "metric" no longer has to match. Before, nothing holds it, and the answers are the typo-tolerant
    // fallback's guesses (scored at most 0.5); after, real matches.
    const scores = async (query: string) => (await search({ query })).body.results.map((r: { score: number }) => r.score);
    expect(Math.max(0, ...(await scores('hex bolt metric')))).toBeLessThanOrEqual(0.5);
    const stopped = await patch({ stop_words: ['metric', 'ISO'] });
    expect(stopped.body).toMatchObject({ version: 2, settings: { synonyms: changed.body.settings.synonyms, stop_words: ['metric', 'ISO'] } });
    expect(await names('hex bolt metric')).toEqual(['Hex bolt M10', 'Hex bolt M8 <zinc>']);
    expect(Math.min(...(await scores('hex bolt metric')))).toBeGreaterThanOrEqual(0.8);

    const typos = await patch({ typo_tolerance: { enabled: false } });
    expect(typos.body.settings.typo_tolerance).toEqual({ enabled: false, min_word_size_one_typo: 5, min_word_size_two_typos: 9, disable_on_fields: [] });
    expect(await names('carriaeg')).toEqual([]);
    await patch({ typo_tolerance: { enabled: true } });
    expect(await names('carriaeg')).toEqual(['Carriage bolt M8']);
    expect((await api('GET', settingsPath, { headers: bearer(admin) })).body.version).toBe(4);
  });

  it('searches only the searchable fields, and matches as typed where typos are off, from the next search', async () => {
    const names = async (query: string) => (await search({ query })).body.results.map((r: { name: string }) => r.name).sort();
    expect(await names('acme')).toEqual(['Hex bolt M10', 'Hex bolt M8 <zinc>', 'Wing nut M8']);
    const tagsOnly = await patch({ searchable_fields: ['tags'] });
    expect(tagsOnly.status).toBe(200);
    expect(tagsOnly.body.settings.searchable_fields).toEqual(['tags']);
    // brand is no longer searched; tags are, and the name and description always.
    const acme = (await search({ query: 'acme' })).body.results as Array<{ score: number }>;
    expect(acme.every((r) => r.score <= 0.5)).toBe(true);
    expect(await names('m10')).toEqual(['Hex bolt M10']);
    expect(await names('hand tightening')).toEqual(['Wing nut M8']);
    await patch({ searchable_fields: null });
    expect(await names('acme')).toEqual(['Hex bolt M10', 'Hex bolt M8 <zinc>', 'Wing nut M8']);

    // "boltno" is one transposition from the brand "Bolton": found through the brand until typos are off there.
    const found = async (query: string) => ((await search({ query, explain: true })).body.results as Array<{ name: string; ranking: { matched_by: string } }>).filter((r) => r.ranking.matched_by === 'text').map((r) => r.name);
    expect(await found('boltno')).toEqual(['Carriage bolt M8']);
    const off = await patch({ typo_tolerance: { disable_on_fields: ['brand'] } });
    expect(off.body.settings.typo_tolerance).toMatchObject({ enabled: true, disable_on_fields: ['brand'] });
    expect(await found('boltno')).toEqual([]);
    expect(await found('bolton')).toEqual(['Carriage bolt M8']);
    await patch({ typo_tolerance: { disable_on_fields: [] } });
  });

  it('refuses bad settings, naming the entry, and changes nothing', async () => {
    const before = (await api('GET', settingsPath, { headers: bearer(admin) })).body;
    const cases: Array<[unknown, string[]]> = [
      [{ synonyms: [['bolt']] }, ['body', 'synonyms', '0']],
      [{ synonyms: [['bolt', 'screw'], { input: ['x'] }] }, ['body', 'synonyms', '1']],
      [{ stop_words: ['the', ' '] }, ['body', 'stop_words', '1']],
      [{ typo_tolerance: { min_word_size_one_typo: 8, min_word_size_two_typos: 6 } }, ['body', 'typo_tolerance', 'min_word_size_two_typos']],
      [{ typo_tolerance: { min_word_size_one_typo: 2 } }, ['body', 'typo_tolerance', 'min_word_size_one_typo']],
      [{ ranking: ['words'] }, ['body', 'ranking']],
      [{ searchable_fields: [] }, ['body', 'searchable_fields']],
      [{ searchable_fields: ['brand', 'brand'] }, ['body', 'searchable_fields']],
      [{ searchable_fields: ['specs..material'] }, ['body', 'searchable_fields', '0']],
      [{ typo_tolerance: { disable_on_fields: 'brand' } }, ['body', 'typo_tolerance', 'disable_on_fields']],
      [{}, ['body']],
    ];
    for (const [body, loc] of cases) {
      const res = await patch(body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const one = await patch({ synonyms: [['bolt']] });
    expect(one.body.detail[0]).toMatchObject({ msg: 'List should have at least 2 items', type: 'too_short' });
    expect((await api('GET', settingsPath, { headers: bearer(admin) })).body).toEqual(before);
  });

  it('asks for the records scope, and serves the portal alike', async () => {
    const searchOnly = await trove.keyFor({ adminKey: admin }, ['search']);
    expect((await patch({ stop_words: ['x'] }, searchOnly)).status).toBe(403);
    const person = await signUp(api);
    const portalPath = '/api/v1/portal/collections/parts/settings';
    const set = await api('PATCH', portalPath, { headers: portalAuth(person.token), body: { stop_words: ['the'] } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ collection: 'parts', version: 1, settings: { stop_words: ['the'] } });
    expect((await api('GET', portalPath, { headers: portalAuth(person.token) })).body.version).toBe(1);
    // Another tenant's collection of the same name has its own settings.
    expect((await api('GET', '/api/v1/collections/parts/settings', { headers: bearer(admin) })).body.version).toBe(0);
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

    const text = await mcpSearch({ collection, query: 'bolt', facets: ['brand', 'price'] });
    expect(text).toContain('Facets (over every match):');
    expect(text).toContain('- brand: Acme (2), Bolton (1)');
    expect(text).toContain('- price: 10 (1), 20 (1), 30 (1); numbers: min 10, max 30, average 20 over 3');
  });
});
