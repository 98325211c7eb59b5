import { randomUUID } from 'node:crypto';
import { TOPICS, recordSchema, type RecordChangedEvent, type RecordsIndexedEvent } from '@trove/contracts';
import { bolt, eventually, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;
let tenant: string;

beforeAll(async () => {
  h = await startRecords();
  tenant = newTenant();
  api = h.as(tenant);
});
afterAll(() => h.stop());

const eventsOf = (id: string) => h.changes.filter((e) => e.record_id === id);
const kindsAndVersions = (events: RecordChangedEvent[]) => events.map((e) => [e.kind, e.version]);

async function acknowledge(id: string, version: number, status: 'indexed' | 'failed', tenantId = tenant) {
  const payload: RecordsIndexedEvent = { acks: [{ tenant_id: tenantId, record_id: id, version, status }] };
  await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: tenantId, payload }]);
}

const read = async (id: string) => (await api.get(`/records/${id}`)).body;

describe('records.changed events', () => {
  it('announces every change of a record once, with the full record and a version that grows by one', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await api.patch(`/records/${id}`, { collection_data: { price: 0.2 } });
    await api.patch(`/records/${id}`, {});
    await api.patch(`/records/${id}/visibility`, { visibility: 'public' });
    await api.delete(`/records/${id}`);
    await api.delete(`/records/${id}`);

    await h.waitForChanges(() => eventsOf(id).length >= 4);
    await new Promise((r) => setTimeout(r, 300));
    const events = eventsOf(id);
    expect(kindsAndVersions(events)).toEqual([
      ['upserted', 1],
      ['upserted', 2],
      ['visibility', 3],
      ['archived', 4],
    ]);
    for (const e of events) {
      expect(e.tenant_id).toBe(tenant);
      if ('record' in e) {
        expect(recordSchema.parse(e.record).version).toBe(e.version);
        expect(e.record.id).toBe(id);
      }
    }
    const last = events.at(-1)!;
    expect(last.kind === 'archived' && last.record).toEqual(await read(id));
    expect(events[2]).toMatchObject({ kind: 'visibility', visibility: 'public' });
    expect(events[1]).toMatchObject({ record: { collection_data: { price: 0.2 }, indexing_status: 'pending' } });
  });

  it('announces one event per record a bulk call changes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/records', bolt({ name: `Bulk ${i}` }))).body.id);
    await api.patch('/records/bulk', { record_ids: ids, update: { name: 'Bulk renamed' } });
    await api.post('/records/bulk-visibility', { record_ids: ids, visibility: 'public' });
    await api.post('/records/bulk-delete', { record_ids: ids });
    await h.waitForChanges(() => ids.every((id) => eventsOf(id).length >= 4));
    for (const id of ids) {
      expect(kindsAndVersions(eventsOf(id))).toEqual([
        ['upserted', 1],
        ['upserted', 2],
        ['visibility', 3],
        ['archived', 4],
      ]);
    }
  });

  it('announces nothing for a request that fails validation', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await h.waitForChanges(() => eventsOf(id).length === 1);
    expect((await api.patch('/records/bulk', { record_ids: [id, 'bad'], update: { name: 'x' } })).status).toBe(422);
    expect((await api.patch(`/records/${id}`, { name: '' })).status).toBe(422);
    await api.patch(`/records/${id}`, { name: 'marker' });
    await h.waitForChanges(() => eventsOf(id).length === 2);
    expect(kindsAndVersions(eventsOf(id))).toEqual([
      ['upserted', 1],
      ['upserted', 2],
    ]);
  });
});

describe('records.indexed acknowledgements', () => {
  it('mark the record indexed when they acknowledge its current version', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await acknowledge(id, 1, 'indexed');
    await eventually(async () => expect((await read(id)).indexing_status).toBe('indexed'));
    const record = await read(id);
    expect(record.version).toBe(1);
  });

  it('are ignored when they acknowledge an older version', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await api.patch(`/records/${id}`, { name: 'Newer' });
    await acknowledge(id, 1, 'indexed');
    const marker = (await api.post('/records', bolt({ name: 'marker' }))).body.id;
    await acknowledge(marker, 1, 'indexed');
    await eventually(async () => expect((await read(marker)).indexing_status).toBe('indexed'));
    expect(await read(id)).toMatchObject({ version: 2, indexing_status: 'pending' });
  });

  it('do not touch another tenant’s record and skip malformed payloads', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await acknowledge(id, 1, 'indexed', newTenant());
    await h.svc.bus.publish([
      { topic: TOPICS.recordsIndexed, key: 'x', payload: { nonsense: true } },
      { topic: TOPICS.recordsIndexed, key: 'x', payload: { tenant_id: tenant, record_id: 'not-a-uuid', version: 1, status: 'indexed' } },
      { topic: TOPICS.recordsIndexed, key: id, payload: { tenant_id: tenant, record_id: id, version: 1, status: 'done' } },
    ]);
    const marker = (await api.post('/records', bolt({ name: 'marker' }))).body.id;
    await acknowledge(marker, 1, 'indexed');
    await eventually(async () => expect((await read(marker)).indexing_status).toBe('indexed'));
    expect((await read(id)).indexing_status).toBe('pending');
  });

  it('apply every acknowledgement of one event, skipping a malformed one alone', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/records', bolt({ name: `Listed ${i}` }))).body.id);
    const acks = [
      { tenant_id: tenant, record_id: ids[0], version: 1, status: 'indexed' },
      { tenant_id: tenant, record_id: ids[1], version: 1, status: 'done' },
      { tenant_id: tenant, record_id: ids[2], version: 1, status: 'failed' },
    ];
    await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: tenant, payload: { acks } }]);
    await eventually(async () => expect((await read(ids[2]!)).indexing_status).toBe('failed'));
    expect((await read(ids[0]!)).indexing_status).toBe('indexed');
    expect((await read(ids[1]!)).indexing_status).toBe('pending');
  });

  it('are read one to an event too, as search published them before', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await h.svc.bus.publish([{ topic: TOPICS.recordsIndexed, key: id, payload: { tenant_id: tenant, record_id: id, version: 1, status: 'indexed' } }]);
    await eventually(async () => expect((await read(id)).indexing_status).toBe('indexed'));
  });

  it('neither bump the version nor announce a change', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await acknowledge(id, 1, 'failed');
    await eventually(async () => expect((await read(id)).indexing_status).toBe('failed'));
    expect((await read(id)).version).toBe(1);
    await api.patch(`/records/${id}`, { name: 'marker' });
    await h.waitForChanges(() => eventsOf(id).length === 2);
    expect(kindsAndVersions(eventsOf(id))).toEqual([
      ['upserted', 1],
      ['upserted', 2],
    ]);
  });
});

describe('POST /records/retry-reset', () => {
  it('sends the tenant’s failed records back to pending with a new version and an upserted event each', async () => {
    const retryTenant = newTenant();
    const client = h.as(retryTenant);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.post('/records', bolt({ name: `Retry ${i}` }))).body.id);
    await acknowledge(ids[0]!, 1, 'failed', retryTenant);
    await acknowledge(ids[1]!, 1, 'failed', retryTenant);
    await acknowledge(ids[2]!, 1, 'indexed', retryTenant);
    await eventually(async () => expect((await client.get(`/records/${ids[2]}`)).body.indexing_status).toBe('indexed'));
    await eventually(async () => expect((await client.get(`/records/${ids[1]}`)).body.indexing_status).toBe('failed'));

    const res = await client.post('/records/retry-reset');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reset: 2 });
    expect((await client.get(`/records/${ids[0]}`)).body).toMatchObject({ indexing_status: 'pending', version: 2 });
    expect((await client.get(`/records/${ids[2]}`)).body).toMatchObject({ indexing_status: 'indexed', version: 1 });
    await h.waitForChanges(() => eventsOf(ids[0]!).length === 2 && eventsOf(ids[1]!).length === 2);
    expect(kindsAndVersions(eventsOf(ids[1]!))).toEqual([
      ['upserted', 1],
      ['upserted', 2],
    ]);
    expect((await client.post('/records/retry-reset')).body).toEqual({ reset: 0 });
  });

  it('leaves other tenants’ failed records alone', async () => {
    const { id } = (await api.post('/records', bolt())).body;
    await acknowledge(id, 1, 'failed');
    await eventually(async () => expect((await read(id)).indexing_status).toBe('failed'));
    expect((await h.as(newTenant()).post('/records/retry-reset')).body).toEqual({ reset: 0 });
    expect((await read(id)).indexing_status).toBe('failed');
  });

  it('ignores any body', async () => {
    expect((await h.as(randomUUID()).post('/records/retry-reset', { anything: 1 })).status).toBe(200);
  });
});
