import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startRecords();
  api = h.as(newTenant());
  const seed: Array<[string, Record<string, unknown>]> = [
    ['hexBolt', { name: 'M8 Hex Bolt', collection: 'fasteners', record_type: 'product' }],
    ['hexNut', { name: 'M8 hex nut', collection: 'fasteners', record_type: 'product' }],
    ['washer', { name: 'Flat washer M8', collection: 'fasteners', record_type: 'accessory' }],
    ['drill', { name: 'Cordless drill-driver', collection: 'tools', record_type: 'product' }],
    ['draft', { name: 'Hex key set', collection: 'tools', record_type: 'product', status: 'draft' }],
    ['archived', { name: 'Old hex bolt', collection: 'fasteners', record_type: 'product' }],
  ];
  for (const [key, body] of seed) {
    const res = await api.post('/records', body);
    expect(res.status).toBe(201);
    ids[key] = res.body.id;
  }
  await api.delete(`/records/${ids.archived}`);
});
afterAll(() => h.stop());

const names = (res: { body: { items: Array<{ name: string }> } }) => res.body.items.map((i) => i.name);

describe('GET /records', () => {
  it('lists active records newest first with the documented item fields', async () => {
    const res = await api.get('/records');
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Cordless drill-driver', 'Flat washer M8', 'M8 hex nut', 'M8 Hex Bolt']);
    expect(res.body).toMatchObject({ cursor: null, has_more: false });
    for (const item of res.body.items) {
      expect(Object.keys(item).sort()).toEqual(['collection', 'created_at', 'id', 'indexing_status', 'name', 'record_type', 'updated_at']);
    }
  });

  it('filters by status archived and draft', async () => {
    expect(names(await api.get('/records?status=archived'))).toEqual(['Old hex bolt']);
    expect(names(await api.get('/records?status=draft'))).toEqual(['Hex key set']);
  });

  it('filters by collection and record_type', async () => {
    expect(names(await api.get('/records?collection=tools'))).toEqual(['Cordless drill-driver']);
    expect(names(await api.get('/records?collection=fasteners&record_type=accessory'))).toEqual(['Flat washer M8']);
    expect(names(await api.get('/records?collection=nothing-here'))).toEqual([]);
  });

  it('searches names: every term must match, case-insensitively', async () => {
    expect(names(await api.get('/records?q=hex%20m8'))).toEqual(['M8 hex nut', 'M8 Hex Bolt']);
    expect(names(await api.get('/records?q=HEX%20BOLT'))).toEqual(['M8 Hex Bolt']);
    expect(names(await api.get('/records?q=hex%20bolt&status=archived'))).toEqual(['Old hex bolt']);
  });

  it('treats the last search term as a prefix', async () => {
    expect(names(await api.get('/records?q=hex%20bo'))).toEqual(['M8 Hex Bolt']);
    expect(names(await api.get('/records?q=dri'))).toEqual(['Cordless drill-driver']);
  });

  it('finds words joined by punctuation in the name', async () => {
    expect(names(await api.get('/records?q=driver'))).toEqual(['Cordless drill-driver']);
  });

  it('answers nothing for a query of punctuation and survives tsquery syntax', async () => {
    expect(names(await api.get('/records?q=%21%21%21'))).toEqual([]);
    const res = await api.get(`/records?q=${encodeURIComponent("hex' & | !(bolt")}`);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['M8 Hex Bolt']);
  });

  it('treats an empty q as no search', async () => {
    expect((await api.get('/records?q=')).body.items).toHaveLength(4);
  });

  it.each([
    ['limit=abc', 'limit=abc', ['query', 'limit']],
    ['limit=0', 'limit=0', ['query', 'limit']],
    ['limit=101', 'limit=101', ['query', 'limit']],
    ['limit=1.5', 'limit=1.5', ['query', 'limit']],
    ['limit=-1', 'limit=-1', ['query', 'limit']],
    ['an unknown status', 'status=deleted', ['query', 'status']],
    ['a malformed collection', 'collection=bad%20name', ['query', 'collection']],
    ['a cursor that is not base64url', 'cursor=not-a-cursor!', ['query', 'cursor']],
    ['a base64url cursor this service did not issue', `cursor=${Buffer.from('["x","y"]').toString('base64url')}`, ['query', 'cursor']],
    ['q over 500 characters', `q=${'a'.repeat(501)}`, ['query', 'q']],
    ['q with a NUL character', 'q=a%00b', ['query', 'q']],
    ['status given twice', 'status=active&status=draft', ['query', 'status']],
  ])('answers 422 for %s', async (_label, query, loc) => {
    const res = await api.get(`/records?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('accepts limits 1 and 100', async () => {
    expect((await api.get('/records?limit=1')).body.items).toHaveLength(1);
    expect((await api.get('/records?limit=100')).body.items).toHaveLength(4);
  });
});

describe('GET /records cursor pagination', () => {
  let pager: Client;
  const created: string[] = [];

  beforeAll(async () => {
    pager = h.as(newTenant());
    for (let i = 0; i < 25; i++) {
      const res = await pager.post('/records', bolt({ name: `Item ${i}` }));
      created.push(res.body.id);
    }
  });

  it('walks every record once, newest first, across pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { items: Array<{ id: string }>; cursor: string | null; has_more: boolean } } = await pager.get(
        `/records?limit=10${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((i) => i.id));
      expect(res.body.has_more).toBe(res.body.cursor !== null);
      cursor = res.body.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('answers has_more false and no cursor on an exactly full last page', async () => {
    const first = await pager.get('/records?limit=20');
    expect(first.body.has_more).toBe(true);
    const second = await pager.get(`/records?limit=5&cursor=${first.body.cursor}`);
    expect(second.body.items).toHaveLength(5);
    expect(second.body).toMatchObject({ has_more: false, cursor: null });
  });

  it('keeps pages stable when records are created between pages', async () => {
    const first = await pager.get('/records?limit=5');
    await pager.post('/records', bolt({ name: 'Newcomer' }));
    const second = await pager.get(`/records?limit=5&cursor=${first.body.cursor}`);
    expect(second.body.items.map((i: { id: string }) => i.id)).toEqual([...created].reverse().slice(5, 10));
  });

  it('orders items by created_at, then id, both descending', async () => {
    // Records created in the same millisecond share created_at; the id breaks the tie so no page skips or repeats one.
    const res = await pager.get('/records?limit=100');
    const items = res.body.items as Array<{ id: string; created_at: string }>;
    for (let i = 1; i < items.length; i++) {
      const a = items[i - 1]!;
      const b = items[i]!;
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
  });
});
