import { TOPICS } from '@trove/contracts';
import { openDatabase, type Database } from '@trove/db';
import { bolt, eventually, newTenant, startRecords, type Client, type Harness } from './helpers';

let database: Database;
let h: Harness;
let api: Client;

beforeAll(async () => {
  database = await openDatabase({ inMemory: true });
  h = await startRecords({ database });
  api = h.as(newTenant());
});
afterAll(async () => {
  await h.stop();
  await database.close();
});

describe('records on embedded PGlite', () => {
  it('runs the record lifecycle: create, list, search, update, index, bulk, archive, retry', async () => {
    const created = await api.post('/records', bolt());
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const second = (await api.post('/records', bolt({ name: 'M8 hex nut', collection: 'nuts' }))).body.id as string;

    const page = await api.get('/records?limit=1');
    expect(page.body.items.map((i: { id: string }) => i.id)).toEqual([second]);
    const next = await api.get(`/records?limit=1&cursor=${page.body.cursor}`);
    expect(next.body).toMatchObject({ items: [{ id }], has_more: false, cursor: null });
    expect((await api.get('/records?q=hex%20bo')).body.items.map((i: { id: string }) => i.id)).toEqual([id]);

    const patched = await api.patch(`/records/${id}`, { collection_data: { price: null, finish: 'zinc' } });
    expect(patched.body).toMatchObject({ version: 2, collection_data: { material: 'steel', standard: 'DIN 933', finish: 'zinc' } });
    expect(patched.body.description_llm).toBe('M8 hex bolt is a product in the fasteners collection with material steel, standard DIN 933, finish zinc.');

    await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: id, payload: { tenant_id: patched.body.tenant_id, record_id: id, version: 2, status: 'failed' } }]);
    await eventually(async () => expect((await api.get(`/records/${id}`)).body.indexing_status).toBe('failed'));
    expect((await api.post('/records/retry-reset')).body).toEqual({ reset: 1 });

    expect((await api.patch('/records/bulk', { record_ids: [id, second], update: { status: 'draft' } })).body).toEqual({ updated: 2 });
    expect((await api.post('/records/bulk-visibility', { record_ids: [id, second], visibility: 'public' })).body).toEqual({ updated: 2 });
    expect((await api.patch(`/records/${id}/visibility`, { visibility: 'private' })).body).toEqual({ id, visibility: 'private' });
    expect((await api.patch('/collections/fasteners/default-visibility', { default_visibility: 'public' })).status).toBe(200);
    expect((await api.delete(`/records/${id}`)).status).toBe(204);
    expect((await api.post('/records/bulk-delete', { record_ids: [id, second] })).body).toEqual({ deleted: 1 });
    expect((await api.get(`/records/${id}`)).body).toMatchObject({ status: 'archived', visibility: 'private' });

    await h.waitForChanges((events) => events.filter((e) => e.record_id === id).length === 7);
    expect(h.changes.filter((e) => e.record_id === id).map((e) => [e.kind, e.version])).toEqual([
      ['upserted', 1],
      ['upserted', 2],
      ['upserted', 3],
      ['upserted', 4],
      ['visibility', 5],
      ['visibility', 6],
      ['archived', 7],
    ]);
  });
});

describe('bulk upsert on embedded PGlite', () => {
  it('creates, skips and updates by source_id and by content', async () => {
    const uploader = h.as(newTenant(), ['upload']);
    const body = (records: object[]) => ({ collection: 'parts', record_type: 'part', source_type: 'file_upload', records });
    const first = await uploader.post('/internal/records/bulk-upsert', body([{ name: 'A', source_id: 'A' }, { name: 'B' }, { name: 'B' }]));
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'skipped']);
    expect(first.body.pending_indexing).toBe(2);
    const second = await uploader.post('/internal/records/bulk-upsert', body([{ name: 'A2', source_id: 'A' }, { name: 'B' }]));
    expect(second.body.results).toEqual([
      { status: 'updated', id: first.body.results[0].id },
      { status: 'skipped', id: first.body.results[1].id },
    ]);
  });
});
