import { randomUUID } from 'node:crypto';
import type { Subscription } from '@trove/bus';
import { acknowledgeIndexing, bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

/**
 * Writes answer once search acknowledges them. These tests play search's side of the contract: they publish the
 * records.indexed acknowledgements search would, for every record whose name does not start with "Unindexed".
 */
let h: Harness;
let api: Client;
let admin: Client;
let tenant: string;
let acker: Subscription;
const WAIT_MS = 2_000;

beforeAll(async () => {
  h = await startRecords({ config: { INDEXING_WAIT_MS: String(WAIT_MS) } });
  tenant = newTenant();
  api = h.as(tenant);
  admin = h.as(tenant, ['admin']);
  acker = await acknowledgeIndexing(h, (e) => 'record' in e && e.record.name.startsWith('Unindexed'));
});
afterAll(async () => {
  await acker.stop();
  await h.stop();
});

describe('answering once the write is searchable', () => {
  it('POST /records answers indexed once search acknowledged the new record', async () => {
    const started = Date.now();
    const res = await api.post('/records', bolt());
    expect(res.status).toBe(201);
    expect(res.body.indexing_status).toBe('indexed');
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
    expect((await api.get(`/records/${res.body.id}`)).body.indexing_status).toBe('indexed');
  });

  it('PATCH answers indexed once search acknowledged the new version', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    const res = await api.patch(`/records/${id}`, { collection_data: { price: 0.5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, indexing_status: 'indexed' });
  });

  it('answers pending after the bounded wait when search does not acknowledge, and the write stands', async () => {
    const started = Date.now();
    const res = await api.post('/records', bolt({ name: 'Unindexed bolt' }));
    expect(res.status).toBe(201);
    expect(res.body.indexing_status).toBe('pending');
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expect((await api.get(`/records/${res.body.id}`)).body).toMatchObject({ name: 'Unindexed bolt', indexing_status: 'pending' });
  });

  it('announces the collection active generation with every change', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await h.waitForChanges((all) => all.some((e) => e.record_id === id));
    expect(h.changes.find((e) => e.record_id === id)).toMatchObject({ kind: 'upserted', active_generation: 1 });
  });
});

describe('re-indexing', () => {
  it('POST /admin/reindex/{collection} queues every live record of the collection with a new version', async () => {
    const collection = `reindex-${randomUUID().slice(0, 8)}`;
    const a = (await api.post('/records', bolt({ collection }))).body;
    const b = (await api.post('/records', bolt({ collection }))).body;
    const gone = (await api.post('/records', bolt({ collection }))).body;
    await api.delete(`/records/${gone.id}`);

    const res = await admin.post(`/admin/reindex/${collection}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ collection, records_reset: 2, message: expect.any(String) });
    await h.waitForChanges((all) => [a.id, b.id].every((id) => all.some((e) => e.record_id === id && e.version === 2)));
    expect(h.changes.filter((e) => e.record_id === gone.id).map((e) => e.kind)).toEqual(['upserted', 'archived']);
  });

  it('POST /admin/reindex/{collection} answers 404 for a collection the tenant does not have', async () => {
    const res = await admin.post('/admin/reindex/no-such-collection');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Collection no-such-collection not found' });
  });

  it('POST /admin/reindex/record/{id} queues the record and answers pending', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    const res = await admin.post(`/admin/reindex/record/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ record_id: id, status: 'pending', message: expect.any(String) });
    await h.waitForChanges((all) => all.some((e) => e.record_id === id && e.version === 2));
  });

  it('POST /admin/reindex/record/{id} answers 404 for an unknown or foreign record and needs admin', async () => {
    expect((await admin.post(`/admin/reindex/record/${randomUUID()}`)).status).toBe(404);
    const { id } = (await api.post('/records', bolt())).body;
    expect((await h.as(newTenant(), ['admin']).post(`/admin/reindex/record/${id}`)).status).toBe(404);
    expect((await api.post(`/admin/reindex/record/${id}`)).status).toBe(403);
    expect((await admin.post('/admin/reindex/record/not-a-uuid')).status).toBe(422);
  });
});
