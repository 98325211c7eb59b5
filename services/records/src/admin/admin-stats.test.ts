import { randomUUID } from 'node:crypto';
import type { Subscription } from '@trove/bus';
import { SEARCH_INDEXER_GROUP, TOPICS, recordChangedEvent } from '@trove/contracts';
import { bolt, eventually, newTenant, startRecords, type Harness } from '../../test/helpers';

let h: Harness;
let indexer: Subscription | undefined;

beforeAll(async () => {
  h = await startRecords();
});
afterAll(async () => {
  await indexer?.stop();
  await h.stop();
});

/** Plays search's indexer: reads records.changed as its consumer group does and acknowledges every change as indexed. */
function startIndexer(): Promise<Subscription> {
  return h.svc.bus.subscribe({
    group: SEARCH_INDEXER_GROUP,
    topics: [TOPICS.recordsChanged],
    handler: async (events) => {
      const acks = events
        .map((e) => recordChangedEvent.parse(e.payload))
        .map((e) => ({ topic: TOPICS.recordsIndexed, key: e.record_id, payload: { tenant_id: e.tenant_id, record_id: e.record_id, version: e.version, status: 'indexed' } }));
      await h.svc.bus.publish(acks);
    },
  });
}

describe('GET /admin/stats', () => {
  it("counts the tenant's records by status and indexing status, and the queue search has yet to read", async () => {
    const tenant = newTenant();
    const api = h.as(tenant);
    const admin = h.as(tenant, ['admin']);
    const collection = `stats-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/records', bolt({ collection }))).body.id);
    expect((await api.post('/records', bolt({ collection, status: 'draft' }))).status).toBe(201);
    expect((await api.delete(`/records/${ids[0]}`)).status).toBe(204);
    // Another tenant's records are in the queue, never in the counts.
    await h.as(newTenant()).post('/records', bolt());

    const before = await admin.get('/admin/stats');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      total_records: 4,
      records_by_status: { active: 2, archived: 1, draft: 1 },
      indexing_status: { indexed: 0, pending: 4, processing: 0, failed: 0 },
      queue_depth: expect.any(Number),
    });
    // Nothing has read records.changed yet: every change made so far (six at least) waits, besides the four records.
    expect(before.body.queue_depth).toBeGreaterThanOrEqual(4 + 6);

    indexer = await startIndexer();
    await eventually(async () => {
      const after = await admin.get('/admin/stats');
      expect(after.body).toEqual({
        total_records: 4,
        records_by_status: { active: 2, archived: 1, draft: 1 },
        indexing_status: { indexed: 4, pending: 0, processing: 0, failed: 0 },
        queue_depth: 0,
      });
    });
  });

  it('answers zeros for a tenant without records, and needs the admin scope', async () => {
    const tenant = newTenant();
    const res = await h.as(tenant, ['admin']).get('/admin/stats');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total_records: 0,
      records_by_status: { active: 0, archived: 0, draft: 0 },
      indexing_status: { indexed: 0, pending: 0, processing: 0, failed: 0 },
    });
    expect((await h.as(tenant, ['records', 'search', 'upload']).get('/admin/stats')).status).toBe(403);
  });
});
