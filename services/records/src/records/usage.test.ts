import {
  RECORDS_BULK_UPSERT,
  RECORDS_COLLECTION_STATS,
  TOPICS,
  usageEvent,
  type CollectionStatsAnswer,
  type UsageEvent,
} from '@trove/contracts';
import { collectEvents, type CollectedEvents } from '@trove/testing';
import { bolt, eventually, newTenant, startRecords, type Harness } from '../../test/helpers';

let h: Harness;
let collected: CollectedEvents<UsageEvent>;

beforeAll(async () => {
  h = await startRecords();
  collected = await collectEvents(h.svc.bus, TOPICS.usageEvents, (p) => usageEvent.parse(p));
});
afterAll(async () => {
  await collected.stop();
  await h.stop();
});

const usageOf = (tenant: string) => collected.events.filter((u) => u.tenant_id === tenant);

/** Waits until records has had time to announce anything the test's writes caused, then returns the tenant's facts. */
async function settledUsage(tenant: string, expected: number): Promise<UsageEvent[]> {
  await eventually(async () => expect(usageOf(tenant).length).toBeGreaterThanOrEqual(expected));
  await new Promise((r) => setTimeout(r, 300));
  return usageOf(tenant);
}

describe('records usage events', () => {
  it('announces one records fact per write transaction that created records, none for changes', async () => {
    const tenant = newTenant();
    const api = h.as(tenant);
    const { id } = (await api.post('/records', bolt())).body;
    await api.patch(`/records/${id}`, { name: 'Renamed bolt' });
    await api.delete(`/records/${id}`);
    const upload = h.as(tenant, ['upload']);
    const chunk = (names: string[]) => ({
      collection: 'fasteners',
      record_type: 'nut',
      source_type: 'file_upload',
      records: names.map((name) => ({ name, source_id: name, collection_data: { size: name } })),
    });
    expect((await upload.post(RECORDS_BULK_UPSERT.path, chunk(['M4', 'M5', 'M6']))).status).toBe(200);
    // Two new, one updated: the fact counts only the new ones.
    expect((await upload.post(RECORDS_BULK_UPSERT.path, { ...chunk(['M6', 'M7', 'M8']), records: [...chunk(['M7', 'M8']).records, { name: 'M6', source_id: 'M6', collection_data: { size: 'six' } }] })).status).toBe(200);
    // Nothing new at all: no fact.
    expect((await upload.post(RECORDS_BULK_UPSERT.path, chunk(['M4', 'M5']))).status).toBe(200);

    const facts = await settledUsage(tenant, 3);
    expect(facts).toEqual([
      { kind: 'records', tenant_id: tenant, record_types: ['product'], created: 1, at: expect.any(String) },
      { kind: 'records', tenant_id: tenant, record_types: ['nut'], created: 3, at: expect.any(String) },
      { kind: 'records', tenant_id: tenant, record_types: ['nut'], created: 2, at: expect.any(String) },
    ]);
  });
});

describe('collection stats for other services', () => {
  it("counts a tenant's active and public records per collection, and nothing of another tenant", async () => {
    const tenant = newTenant();
    const api = h.as(tenant);
    const first = (await api.post('/records', bolt({ visibility: 'public' }))).body;
    await api.post('/records', bolt({ name: 'Second bolt' }));
    const gone = (await api.post('/records', bolt({ name: 'Archived bolt' }))).body;
    await api.delete(`/records/${gone.id}`);
    await api.post('/records', bolt({ name: 'Draft bolt', status: 'draft' }));
    await api.post('/records', bolt({ name: 'Washer', collection: 'washers', record_type: 'washer' }));
    await h.as(newTenant()).post('/records', bolt({ collection: 'others' }));

    const res = await api.get(RECORDS_COLLECTION_STATS.path);
    expect(res.status).toBe(200);
    const answer = res.body as CollectionStatsAnswer;
    expect(answer).toEqual({
      tenant_id: tenant,
      total_records: 3,
      collections: [
        { collection: 'fasteners', record_count: 2, public_count: 1, last_updated: expect.any(String) },
        { collection: 'washers', record_count: 1, public_count: 0, last_updated: expect.any(String) },
      ],
    });
    expect(Date.parse(answer.collections[0]!.last_updated)).toBeGreaterThanOrEqual(Date.parse(first.created_at));
  });

  it('answers an empty listing for a tenant without records', async () => {
    const res = await h.as(newTenant()).get(RECORDS_COLLECTION_STATS.path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_records: 0, collections: [] });
  });
});
