import type { Subscription } from '@trove/bus';
import { acknowledgeIndexing, bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';
import { portalClient, type PortalClient } from '../../test/portal-helpers';

let h: Harness;
let acker: Subscription;
let tenant: string;
let portal: PortalClient;
let api: Client;
let otherPortal: PortalClient;

beforeAll(async () => {
  h = await startRecords({ config: { INDEXING_WAIT_MS: '5000' } });
  acker = await acknowledgeIndexing(h, () => false);
  tenant = newTenant();
  portal = portalClient(h.svc, tenant);
  api = h.as(tenant);
  otherPortal = portalClient(h.svc, newTenant());
});
afterAll(async () => {
  await acker.stop();
  await h.stop();
});

async function create(client: Client, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/records', bolt(overrides));
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('GET /portal/records', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = [];
    for (let i = 0; i < 5; i++) ids.push(await create(api, { name: `Browse bolt ${i}`, collection: 'browse', record_type: i < 3 ? 'product' : 'spare' }));
    await create(api, { name: 'Browse draft', collection: 'browse', status: 'draft' });
    await api.delete(`/records/${await create(api, { name: 'Browse archived', collection: 'browse' })}`);
    await create(h.as(newTenant()), { name: 'Browse other tenant', collection: 'browse' });
  });

  it('pages the active records of a collection newest first, with the total and each record in full', async () => {
    const first = await portal.get('/portal/records?collection=browse&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(5);
    expect(first.body.items.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.items[0]).toEqual({
      id: ids[4],
      name: 'Browse bolt 4',
      description: null,
      collection: 'browse',
      record_type: 'spare',
      indexing_status: 'indexed',
      collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12 },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const rest = await portal.get('/portal/records?collection=browse&limit=2&offset=2');
    const last = await portal.get('/portal/records?collection=browse&limit=2&offset=4');
    expect([...rest.body.items, ...last.body.items].map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await portal.get('/portal/records?collection=browse&offset=50')).body).toEqual({ items: [], total: 5 });
  });

  it('filters by record type and defaults to 20 items from offset 0', async () => {
    const res = await portal.get('/portal/records?collection=browse&record_type=product');
    expect(res.body.total).toBe(3);
    expect(res.body.items.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it("answers an empty page for another tenant's or an unknown collection", async () => {
    expect((await otherPortal.get('/portal/records?collection=browse')).body).toEqual({ items: [], total: 0 });
    expect((await portal.get('/portal/records?collection=nothing-here')).body).toEqual({ items: [], total: 0 });
  });

  it('answers 422 without a collection or with limit or offset out of range', async () => {
    const missing = await portal.get('/portal/records');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['query', 'collection'], type: 'missing' });
    for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['offset=-1', 'offset'], ['limit=abc', 'limit']] as const) {
      const res = await portal.get(`/portal/records?collection=browse&${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', field]);
    }
  });
});

describe('one record', () => {
  it('GET answers the full record with visibility, generation and source_name', async () => {
    const id = await create(api, { source_name: 'catalogue.csv', visibility: 'public' });
    const res = await portal.get(`/portal/records/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, tenant_id: tenant, visibility: 'public', generation: 1, source_name: 'catalogue.csv', status: 'active' });
  });

  it('PATCH merges collection_data, renames, and answers once the search text is rebuilt', async () => {
    const id = await create(api);
    const res = await portal.patch(`/portal/records/${id}`, { name: 'M8 hex bolt, zinc', collection_data: { finish: 'zinc', price: null }, source_name: 'fixed by hand' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: 'M8 hex bolt, zinc',
      collection_data: { material: 'steel', standard: 'DIN 933', finish: 'zinc' },
      source_name: 'fixed by hand',
      version: 2,
      indexing_status: 'indexed',
    });
    expect(res.body.collection_data).not.toHaveProperty('price');
    expect(res.body.description_llm).toContain('zinc');
    expect((await portal.get(`/portal/records/${id}`)).body).toMatchObject({ name: 'M8 hex bolt, zinc', version: 2 });
    const announced = await h.waitForChanges((events) => events.some((e) => e.record_id === id && e.version === 2));
    expect(announced.find((e) => e.record_id === id && e.version === 2)).toMatchObject({ kind: 'upserted', record: { name: 'M8 hex bolt, zinc' } });
  });

  it('PATCH refuses fields the portal may not change and bad values (422), and nothing changes', async () => {
    const id = await create(api);
    for (const [body, loc, type] of [
      [{ collection: 'elsewhere' }, ['body', 'collection'], 'extra_forbidden'],
      [{ record_type: 'spare' }, ['body', 'record_type'], 'extra_forbidden'],
      [{ name: '' }, ['body', 'name'], undefined],
      [{ visibility: 'everyone' }, ['body', 'visibility'], undefined],
      [{ collection_data: 'flat' }, ['body', 'collection_data'], undefined],
    ] as const) {
      const res = await portal.patch(`/portal/records/${id}`, body);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc, ...(type ? { type } : {}) });
    }
    expect((await portal.get(`/portal/records/${id}`)).body.version).toBe(1);
  });

  it('DELETE archives the record: 204, it reads archived and leaves the browse list', async () => {
    const id = await create(api, { collection: 'deleting' });
    expect((await portal.delete(`/portal/records/${id}`)).status).toBe(204);
    expect((await portal.get(`/portal/records/${id}`)).body.status).toBe('archived');
    expect((await portal.get('/portal/records?collection=deleting')).body).toEqual({ items: [], total: 0 });
    await h.waitForChanges((events) => events.some((e) => e.record_id === id && e.kind === 'archived'));
    expect((await portal.patch(`/portal/records/${id}`, { name: 'Back again' })).status).toBe(409);
  });

  it('POST reindex queues the record with a new version: one job', async () => {
    const id = await create(api);
    const res = await portal.post(`/portal/records/${id}/reindex`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ record_id: id, jobs: 1 });
    await h.waitForChanges((events) => events.some((e) => e.record_id === id && e.version === 2 && e.kind === 'upserted'));
  });

  it('PATCH visibility answers the new visibility and when it changed, and announces it', async () => {
    const id = await create(api);
    const before = (await portal.get(`/portal/records/${id}`)).body;
    const res = await portal.patch(`/portal/records/${id}/visibility`, { visibility: 'public' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, visibility: 'public', updated_at: expect.any(String) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect((await portal.get(`/portal/records/${id}`)).body).toMatchObject({ visibility: 'public', updated_at: res.body.updated_at });
    await h.waitForChanges((events) => events.some((e) => e.record_id === id && e.kind === 'visibility'));
    const bad = await portal.patch(`/portal/records/${id}/visibility`, { visibility: 'open' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'visibility']);
    expect((await portal.patch(`/portal/records/${id}/visibility`, {})).body.detail[0]).toMatchObject({ loc: ['body', 'visibility'], type: 'missing' });
  });

  it("answers 404 for another tenant's record exactly as for a missing one, and changes nothing", async () => {
    const id = await create(api);
    const missing = '7d0f3f5e-0000-4000-8000-000000000000';
    for (const target of [id, missing]) {
      const answers = [
        await otherPortal.get(`/portal/records/${target}`),
        await otherPortal.patch(`/portal/records/${target}`, { name: 'Taken over' }),
        await otherPortal.delete(`/portal/records/${target}`),
        await otherPortal.post(`/portal/records/${target}/reindex`),
        await otherPortal.patch(`/portal/records/${target}/visibility`, { visibility: 'public' }),
      ];
      expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
      expect(answers[0]!.body).toEqual({ detail: `Record ${target} not found` });
    }
    expect((await portal.get(`/portal/records/${id}`)).body).toMatchObject({ name: 'M8 hex bolt', status: 'active', visibility: 'private', version: 1 });
  });

  it('answers 422 for an id that is not a UUID', async () => {
    const res = await portal.get('/portal/records/not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'id']);
  });
});

describe('older vocabulary: /portal/entities', () => {
  it('GET answers the record with entity names', async () => {
    const id = await create(api, { collection: 'parts', record_type: 'bolt' });
    const res = await portal.get(`/portal/entities/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: 'M8 hex bolt',
      vertical: 'parts',
      entity_type: 'bolt',
      vertical_data: { material: 'steel' },
      embedding_status: 'completed',
      claim_status: 'unclaimed',
      // name, three data fields of four fields and the description: 4 of 5 filled
      data_quality_score: 0.8,
    });
    for (const field of ['collection', 'record_type', 'collection_data', 'indexing_status']) expect(res.body).not.toHaveProperty(field);
  });

  it('PATCH merges vertical_data; collection_data is not a field of this vocabulary', async () => {
    const id = await create(api);
    const res = await portal.patch(`/portal/entities/${id}`, { name: 'Entity bolt', vertical_data: { grade: '8.8' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Entity bolt', vertical_data: { material: 'steel', grade: '8.8' }, embedding_status: 'completed', version: 2 });
    const wrong = await portal.patch(`/portal/entities/${id}`, { collection_data: { grade: '10.9' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0]).toMatchObject({ loc: ['body', 'collection_data'], type: 'extra_forbidden' });
    const claimed = await portal.patch(`/portal/entities/${id}`, { claim_status: 'claimed' });
    expect(claimed.body).toMatchObject({ claim_status: 'claimed', version: 3 });
  });

  it("DELETE archives (204); another tenant's entity is 404", async () => {
    const id = await create(api);
    expect((await otherPortal.delete(`/portal/entities/${id}`)).status).toBe(404);
    expect((await otherPortal.get(`/portal/entities/${id}`)).status).toBe(404);
    expect((await portal.delete(`/portal/entities/${id}`)).status).toBe(204);
    expect((await portal.get(`/portal/entities/${id}`)).body.status).toBe('archived');
  });
});

describe('who may call', () => {
  // Every row has a body (undefined where none): jest passes `done` to a callback with more parameters than the row.
  const routes: Array<[string, string, unknown]> = [
    ['get', '/portal/records?collection=browse', undefined],
    ['get', '/portal/records/7d0f3f5e-0000-4000-8000-000000000000', undefined],
    ['patch', '/portal/records/7d0f3f5e-0000-4000-8000-000000000000', { name: 'x' }],
    ['delete', '/portal/records/7d0f3f5e-0000-4000-8000-000000000000', undefined],
    ['post', '/portal/records/7d0f3f5e-0000-4000-8000-000000000000/reindex', undefined],
    ['patch', '/portal/records/7d0f3f5e-0000-4000-8000-000000000000/visibility', { visibility: 'public' }],
    ['get', '/portal/entities/7d0f3f5e-0000-4000-8000-000000000000', undefined],
    ['patch', '/portal/entities/7d0f3f5e-0000-4000-8000-000000000000', { name: 'x' }],
    ['delete', '/portal/entities/7d0f3f5e-0000-4000-8000-000000000000', undefined],
  ];

  it.each(routes)('%s %s answers 401 to an API key, even an admin one', async (method, path, body) => {
    const key = h.as(tenant, ['admin']) as unknown as Record<string, (p: string, b?: unknown) => Promise<{ status: number; body: unknown }>>;
    const res = await key[method]!(path, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Missing or invalid portal token' });
  });
});
