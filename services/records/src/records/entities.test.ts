import { randomUUID } from 'node:crypto';
import type { Subscription } from '@trove/bus';
import { TOPICS } from '@trove/contracts';
import { acknowledgeIndexing, bolt, eventually, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let acker: Subscription;
let tenant: string;
let api: Client;

// Search's side is played by the test: record writes are acknowledged at once, pipeline writes (the older
// vocabulary's creations and requeues) are left for the test to move, as the pipeline's jobs would.
beforeAll(async () => {
  h = await startRecords({ config: { INDEXING_WAIT_MS: '5000' } });
  acker = await acknowledgeIndexing(h, (e) => e.kind === 'upserted' && e.pipeline === true);
  tenant = newTenant();
  api = h.as(tenant);
});
afterAll(async () => {
  await acker.stop();
  await h.stop();
});

function entity(overrides: Record<string, unknown> = {}) {
  return { name: 'M8 hex bolt', vertical: 'older-parts', entity_type: 'bolt', vertical_data: { material: 'steel', grade: '8.8' }, ...overrides };
}

async function createEntity(overrides: Record<string, unknown> = {}, client: Client = api): Promise<string> {
  const res = await client.post('/entities', entity(overrides));
  expect(res.status).toBe(201);
  return res.body.id;
}

async function acknowledge(id: string, status: 'processing' | 'indexed' | 'failed') {
  const { version } = (await api.get(`/records/${id}`)).body;
  await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: tenant, payload: { acks: [{ tenant_id: tenant, record_id: id, version, status }] } }]);
}

const statusOf = async (id: string) => (await api.get(`/entities/${id}`)).body.embedding_status;

describe('POST /entities', () => {
  it('creates an entity and answers 201 in the older names, pending, without waiting for search', async () => {
    const res = await api.post('/entities', entity({ claim_status: 'pending' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'M8 hex bolt',
      vertical: 'older-parts',
      entity_type: 'bolt',
      visibility: 'private',
      vertical_data: { material: 'steel', grade: '8.8' },
      embedding_status: 'pending',
      claim_status: 'pending',
      data_quality_score: 0.75,
      created_at: expect.any(String),
    });
    const [event] = await h.waitForChanges((events) => events.some((e) => e.record_id === res.body.id));
    const change = h.changes.find((e) => e.record_id === res.body.id)!;
    expect(event).toBeDefined();
    expect(change).toMatchObject({ kind: 'upserted', pipeline: true, collection_vocabulary: 'older' });
  });

  it('refuses current names (422 naming the field) and names missing fields the older way', async () => {
    const current = await api.post('/entities', { name: 'x', collection: 'parts', record_type: 'bolt', vertical: 'parts', entity_type: 'bolt' });
    expect(current.status).toBe(422);
    expect(current.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'collection'], type: 'extra_forbidden' }), expect.objectContaining({ loc: ['body', 'record_type'], type: 'extra_forbidden' })]);
    const missing = await api.post('/entities', { name: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'vertical'],
      ['body', 'entity_type'],
    ]);
    const data = await api.post('/entities', entity({ vertical_data: 'steel' }));
    expect(data.body.detail[0]).toMatchObject({ loc: ['body', 'vertical_data'], type: 'dict_type' });
    expect((await api.post('/entities', entity({ claim_status: 'mine' }))).body.detail[0]).toMatchObject({ loc: ['body', 'claim_status'], type: 'enum' });
    expect((await api.post('/entities', entity({ data_quality_score: 1 }))).body.detail[0]).toMatchObject({ loc: ['body', 'data_quality_score'], type: 'extra_forbidden' });
  });

  it('and the reverse: /records refuses the older names, in the body and in the listing query', async () => {
    const res = await api.post('/records', { name: 'x', vertical: 'parts', collection: 'parts', record_type: 'bolt' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'vertical'], type: 'extra_forbidden' })]);
    expect((await api.post('/records', { ...bolt(), claim_status: 'claimed' })).body.detail[0]).toMatchObject({ loc: ['body', 'claim_status'], type: 'extra_forbidden' });
    const list = await api.get('/records?vertical=parts');
    expect(list.status).toBe(422);
    expect(list.body.detail[0]).toMatchObject({ loc: ['query', 'vertical'], type: 'extra_forbidden' });
  });
});

describe('embedding_status', () => {
  it('moves pending, processing, completed as the pipeline acknowledges; a late processing changes nothing', async () => {
    const id = await createEntity();
    expect(await statusOf(id)).toBe('pending');
    await acknowledge(id, 'processing');
    await eventually(async () => expect(await statusOf(id)).toBe('processing'));
    await acknowledge(id, 'indexed');
    await eventually(async () => expect(await statusOf(id)).toBe('completed'));
    await acknowledge(id, 'processing');
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(id)).toBe('completed');
    // The same record in the current vocabulary.
    expect((await api.get(`/records/${id}`)).body.indexing_status).toBe('indexed');
  });

  it('POST /entities/retry-reset sends failed entities back to pending for the pipeline', async () => {
    const client = h.as(newTenant());
    const id = await createEntity({}, client);
    const { version } = (await client.get(`/records/${id}`)).body;
    const tenantId = (await client.get(`/records/${id}`)).body.tenant_id;
    await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: tenantId, payload: { acks: [{ tenant_id: tenantId, record_id: id, version, status: 'failed' }] } }]);
    await eventually(async () => expect((await client.get(`/entities/${id}`)).body.embedding_status).toBe('failed'));
    const res = await client.post('/entities/retry-reset');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reset: 1 });
    expect((await client.get(`/entities/${id}`)).body).toMatchObject({ embedding_status: 'pending', version: version + 1 });
    await h.waitForChanges((events) => events.some((e) => e.record_id === id && e.version === version + 1));
    expect(h.changes.find((e) => e.record_id === id && e.version === version + 1)).toMatchObject({ kind: 'upserted', pipeline: true });
  });
});

describe('one record, two vocabularies', () => {
  it('an entity reads as a record and a record as an entity: same id, same data', async () => {
    const id = await createEntity({ description: 'Hex head' });
    const asRecord = (await api.get(`/records/${id}`)).body;
    expect(asRecord).toMatchObject({ id, collection: 'older-parts', record_type: 'bolt', collection_data: { material: 'steel', grade: '8.8' }, description: 'Hex head' });
    for (const field of ['vertical', 'entity_type', 'vertical_data', 'embedding_status', 'data_quality_score']) expect(asRecord).not.toHaveProperty(field);

    const created = await api.post('/records', bolt({ collection: 'current-parts' }));
    const asEntity = (await api.get(`/entities/${created.body.id}`)).body;
    expect(asEntity).toMatchObject({
      id: created.body.id,
      vertical: 'current-parts',
      entity_type: 'product',
      vertical_data: { material: 'steel', standard: 'DIN 933', price: 0.12 },
      embedding_status: 'completed',
      claim_status: 'unclaimed',
      status: 'active',
    });
    for (const field of ['collection', 'record_type', 'collection_data', 'indexing_status']) expect(asEntity).not.toHaveProperty(field);
  });

  it('a collection first created through /records keeps the current vocabulary when entities join it', async () => {
    const created = await api.post('/records', bolt({ collection: 'mixed-parts' }));
    const id = await createEntity({ vertical: 'mixed-parts' });
    await h.waitForChanges((events) => events.some((e) => e.record_id === id));
    expect(h.changes.find((e) => e.record_id === created.body.id)).not.toHaveProperty('collection_vocabulary');
    expect(h.changes.find((e) => e.record_id === id)).not.toHaveProperty('collection_vocabulary');
  });
});

describe('GET /entities', () => {
  it('lists in the flat form with older names, filtered by vertical, entity_type, q and status, paged by cursor', async () => {
    const client = h.as(newTenant());
    for (let i = 0; i < 3; i++) await createEntity({ name: `Listed bolt ${i}`, vertical: 'listing' }, client);
    await createEntity({ name: 'Listed nut', vertical: 'listing', entity_type: 'nut' }, client);
    const archived = await createEntity({ name: 'Listed gone', vertical: 'listing' }, client);
    await client.delete(`/entities/${archived}`);

    const first = await client.get('/entities?vertical=listing&entity_type=bolt&limit=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['cursor', 'has_more', 'items']);
    expect(first.body.items).toHaveLength(2);
    expect(Object.keys(first.body.items[0]).sort()).toEqual(['created_at', 'embedding_status', 'entity_type', 'id', 'name', 'updated_at', 'vertical']);
    expect(first.body.has_more).toBe(true);
    const second = await client.get(`/entities?vertical=listing&entity_type=bolt&limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body).toMatchObject({ has_more: false, cursor: null });
    expect([...first.body.items, ...second.body.items].map((i: { name: string }) => i.name).sort()).toEqual(['Listed bolt 0', 'Listed bolt 1', 'Listed bolt 2']);

    expect((await client.get('/entities?vertical=listing&q=nut')).body.items.map((i: { name: string }) => i.name)).toEqual(['Listed nut']);
    expect((await client.get('/entities?vertical=listing&status=archived')).body.items.map((i: { name: string }) => i.name)).toEqual(['Listed gone']);
    expect((await client.get('/entities?vertical=listing')).body.items).toHaveLength(4);
  });

  it('answers 422 for current names and for a limit out of 1-100', async () => {
    const wrong = await api.get('/entities?collection=listing');
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0]).toMatchObject({ loc: ['query', 'collection'], type: 'extra_forbidden' });
    for (const limit of ['0', '101', 'x']) {
      const res = await api.get(`/entities?limit=${limit}`);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
    }
  });
});

describe('GET, PATCH, DELETE /entities/{id}', () => {
  it('PATCH merges vertical_data, sets claim_status, answers once searchable (completed), and reads back', async () => {
    const id = await createEntity();
    const res = await api.patch(`/entities/${id}`, { name: 'M8 bolt', entity_type: 'screw', vertical_data: { grade: null, finish: 'zinc' }, claim_status: 'claimed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: 'M8 bolt',
      entity_type: 'screw',
      vertical_data: { material: 'steel', finish: 'zinc' },
      embedding_status: 'completed',
      claim_status: 'claimed',
      version: 2,
    });
    expect((await api.get(`/entities/${id}`)).body).toEqual(res.body);
    // Set through the older vocabulary, it reads in the current one too.
    expect((await api.get(`/records/${id}`)).body).toMatchObject({ claim_status: 'claimed', record_type: 'screw' });
  });

  it('names the older field in a 422 the service raises after parsing (too many fields once merged)', async () => {
    const fields: Record<string, number> = {};
    for (let i = 0; i < 900; i++) fields[`f${i}`] = i;
    const id = await createEntity({ vertical_data: fields });
    const more: Record<string, number> = {};
    for (let i = 900; i < 1200; i++) more[`f${i}`] = i;
    const res = await api.patch(`/entities/${id}`, { vertical_data: more });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'vertical_data']);
  });

  it('refuses current names in an update', async () => {
    const id = await createEntity();
    const res = await api.patch(`/entities/${id}`, { collection_data: { grade: '10.9' }, record_type: 'nut' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'collection_data'],
      ['body', 'record_type'],
    ]);
  });

  it("DELETE answers 204 and the entity reads archived; unknown and another tenant's ids are 404", async () => {
    const id = await createEntity();
    const other = h.as(newTenant());
    expect((await other.get(`/entities/${id}`)).status).toBe(404);
    expect((await other.delete(`/entities/${id}`)).status).toBe(404);
    expect((await other.patch(`/entities/${id}`, { name: 'x' })).status).toBe(404);
    expect((await api.get(`/entities/${randomUUID()}`)).status).toBe(404);
    expect((await api.delete(`/entities/${id}`)).status).toBe(204);
    expect((await api.get(`/entities/${id}`)).body).toMatchObject({ id, status: 'archived' });
    expect((await api.get('/entities/not-a-uuid')).body.detail[0].loc).toEqual(['path', 'id']);
  });
});

describe('bulk', () => {
  it('PATCH /entities/bulk updates by entity_ids; POST /entities/bulk-delete archives them', async () => {
    const ids = [await createEntity({ name: 'Bulk 1' }), await createEntity({ name: 'Bulk 2' })];
    const updated = await api.patch('/entities/bulk', { entity_ids: [...ids, randomUUID()], update: { vertical_data: { grade: '10.9' }, claim_status: 'claimed' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ updated: 2 });
    for (const id of ids) expect((await api.get(`/entities/${id}`)).body).toMatchObject({ vertical_data: { material: 'steel', grade: '10.9' }, claim_status: 'claimed' });

    const deleted = await api.post('/entities/bulk-delete', { entity_ids: ids });
    expect(deleted.body).toEqual({ deleted: 2 });
    for (const id of ids) expect((await api.get(`/entities/${id}`)).body.status).toBe('archived');
  });

  it('refuses record_ids and current names inside the update, naming them the older way', async () => {
    const id = await createEntity();
    const byRecordIds = await api.post('/entities/bulk-delete', { record_ids: [id] });
    expect(byRecordIds.status).toBe(422);
    expect(byRecordIds.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'record_ids'], type: 'extra_forbidden' })]);
    const nested = await api.patch('/entities/bulk', { entity_ids: [id], update: { collection_data: { a: 1 } } });
    expect(nested.status).toBe(422);
    expect(nested.body.detail[0]).toMatchObject({ loc: ['body', 'update', 'collection_data'], type: 'extra_forbidden' });
    const badData = await api.patch('/entities/bulk', { entity_ids: [id], update: { vertical_data: [] } });
    expect(badData.body.detail[0].loc).toEqual(['body', 'update', 'vertical_data']);
  });
});
