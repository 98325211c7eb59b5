import { TroveClient, cursorPages } from './index.js';
import { json, useServers } from './__tests__/server.js';

const serve = useServers();

const RECORDS = Array.from({ length: 250 }, (_, i) => ({ id: `id-${i}`, name: `Record ${i}` }));

/** GET /api/v1/records, newest first, `limit` per page, the cursor being the index of the page's next record. */
async function recordsServer() {
  return serve((req, res) => {
    const url = new URL(req.url, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const items = RECORDS.slice(from, from + limit);
    const more = from + limit < RECORDS.length;
    json(res, 200, { items, cursor: more ? String(from + limit) : null, has_more: more });
  });
}

/** POST /search/{collection}: `total` results by offset and limit, as pagination says. */
async function searchServer(total: number, opts: { thinned?: boolean } = {}) {
  return serve((req, res) => {
    const { offset = 0, limit = 20 } = JSON.parse(req.body.toString()) as { offset?: number; limit?: number };
    // A thinned page (the Open API hides records made private since they were indexed) holds fewer than it covers.
    const results = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({ record_id: `r-${offset + i}`, name: `Result ${offset + i}` })).filter(
      (_, i) => !(opts.thinned && i % 3 === 0),
    );
    json(res, 200, { results, pagination: { offset, limit, has_more: offset + limit < total }, metadata: {} });
  });
}

describe('cursor iteration', () => {
  it('walks every record once, following the cursor a page at a time', async () => {
    const s = await recordsServer();
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const seen = await trove.records.iterate({ collection: 'parts', limit: 100 }).toArray();
    expect(seen.map((r) => r.id)).toEqual(RECORDS.map((r) => r.id));
    expect(s.received.map((r) => r.url)).toEqual([
      '/api/v1/records?collection=parts&limit=100',
      '/api/v1/records?collection=parts&limit=100&cursor=100',
      '/api/v1/records?collection=parts&limit=100&cursor=200',
    ]);
  });

  it('yields whole pages with pages(), and starts over on each iteration', async () => {
    const s = await recordsServer();
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const listing = trove.records.iterate({ limit: 120 });
    const sizes: number[] = [];
    for await (const page of listing.pages()) sizes.push(page.items.length);
    expect(sizes).toEqual([120, 120, 10]);
    let count = 0;
    for await (const record of listing) {
      expect(record.id).toBe(`id-${count}`);
      count++;
    }
    expect(count).toBe(250);
  });

  it('stops reading pages when the loop stops', async () => {
    const s = await recordsServer();
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    for await (const record of trove.records.iterate({ limit: 10 })) if (record.id === 'id-15') break;
    expect(s.received).toHaveLength(2);
  });

  it("takes the server's page size unless given one", async () => {
    const s = await recordsServer();
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    expect(await trove.records.iterate().toArray()).toHaveLength(250);
    expect(s.received).toHaveLength(13);
    expect(s.received[1]!.url).toBe('/api/v1/records?cursor=20');
  });

  it('pages any cursor listing with cursorPages', async () => {
    const pages = cursorPages(
      async (cursor) => ({ items: cursor ? ['c', 'd'] : ['a', 'b'], cursor: cursor ? null : 'next', has_more: !cursor }),
      (page) => page.items,
    );
    expect(await pages.toArray()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('offset iteration', () => {
  it('walks every search result once, pageSize at a time', async () => {
    const s = await searchServer(45);
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    const results = await trove.searchAll('parts', { query: 'bolt', filters: { material: 'steel' } }, { pageSize: 20 }).toArray();
    expect(results.map((r) => r.record_id)).toEqual(Array.from({ length: 45 }, (_, i) => `r-${i}`));
    expect(s.received.map((r) => [r.url, JSON.parse(r.body.toString())])).toEqual([
      ['/api/v1/search/parts', { query: 'bolt', filters: { material: 'steel' }, offset: 0, limit: 20 }],
      ['/api/v1/search/parts', { query: 'bolt', filters: { material: 'steel' }, offset: 20, limit: 20 }],
      ['/api/v1/search/parts', { query: 'bolt', filters: { material: 'steel' }, offset: 40, limit: 20 }],
    ]);
  });

  it('moves on by the limit the server answered when no page size is given', async () => {
    const s = await searchServer(45);
    const trove = new TroveClient({ baseUrl: s.url, apiKey: 'k' });
    expect(await trove.searchAll('parts', { query: 'bolt' }).toArray()).toHaveLength(45);
    expect(s.received.map((r) => JSON.parse(r.body.toString()))).toEqual([0, 20, 40].map((offset) => ({ query: 'bolt', offset })));
  });

  it('moves on by the page size even when a page comes back thinned, so nothing is fetched twice', async () => {
    const s = await searchServer(30, { thinned: true });
    const trove = new TroveClient({ baseUrl: s.url });
    const pages = [];
    for await (const page of trove.open.searchAll({ query: 'bolt' }, { pageSize: 10 }).pages()) pages.push(page.pagination.offset);
    expect(pages).toEqual([0, 10, 20]);
    const ids = (await trove.open.searchAll({ query: 'bolt' }, { pageSize: 10 }).toArray()).map((r) => r.record_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(18);
    expect(s.received.every((r) => r.url === '/open/v1/search' && r.headers.authorization === undefined)).toBe(true);
  });
});
