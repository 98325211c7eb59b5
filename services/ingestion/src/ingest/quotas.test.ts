import { as, countOf, eventually, newTenant, startSystem, type System } from '../../test/helpers';

let system: System;

beforeAll(async () => {
  // Chunks of 20, so the limit falls inside the third chunk of a 60-record upload.
  system = await startSystem({ INGEST_CHUNK_SIZE: '20', STREAM_FLUSH_INTERVAL_MS: '100' });
});
afterAll(() => system.stop());

const RECORD_LIMIT = 'Record limit reached: the free plan allows 50 active records.';
const FREE_COLLECTIONS = 'Collection limit reached: the free plan allows 1 collection.';

const records = (n: number, prefix = 'Bolt') => Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}`, source_id: `${prefix}-${i}` }));

function batch(tenant: string, plan: string | undefined, collection: string, body: unknown) {
  return as(system.ingestion, tenant, ['upload'], plan)
    .post(`/upload/${collection}/product/batch`)
    .set('content-type', 'application/json')
    .send(JSON.stringify(body));
}

describe('plan limits on uploads', () => {
  it('writes 50 of a free tenant’s 60 records and dead-letters the other 10 with the reason', async () => {
    const tenant = newTenant();
    const res = await batch(tenant, 'free', 'bolts', { records: records(60) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 60, accepted: 50, rejected: 10, dedup_skipped: 0 },
      metadata: { reconciliation_passed: true },
    });
    // Chunks are written concurrently, so which 10 the limit refuses depends on which chunk commits first.
    const refused = new Set<number>(res.body.errors.map((e: { record_index: number }) => e.record_index));
    expect(refused.size).toBe(10);
    for (const e of res.body.errors) {
      expect(e).toEqual({ record_index: e.record_index, error: RECORD_LIMIT, record_data: { name: `Bolt ${e.record_index}`, source_id: `Bolt-${e.record_index}` } });
    }
    expect(await countOf(system, tenant, 'bolts')).toBe(50);
    const letters = await as(system.ingestion, tenant).get(`/uploads/${res.body.upload_id}/errors`);
    expect(letters.status).toBe(200);
    expect(JSON.stringify(letters.body).split(RECORD_LIMIT).length - 1).toBe(10);

    // Uploaded again, the 50 stored records are duplicates and the 10 are refused again; a change to a stored one applies.
    const stored = [...Array(60).keys()].find((i) => !refused.has(i))!;
    const file = records(60).map((r, i) => (i === stored ? { ...r, name: 'renamed' } : r));
    const again = await batch(tenant, 'free', 'bolts', { records: file });
    expect(again.body.summary).toEqual({ submitted: 60, accepted: 1, rejected: 10, dedup_skipped: 49 });
    expect(await countOf(system, tenant, 'bolts')).toBe(50);
  });

  it('refuses every record of a free tenant’s upload into a second collection, naming the collection limit', async () => {
    const tenant = newTenant();
    expect((await batch(tenant, 'free', 'bolts', { records: records(2) })).body.summary.accepted).toBe(2);
    const res = await batch(tenant, 'free', 'tools', { records: records(3, 'Saw') });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 3, accepted: 0, rejected: 3, dedup_skipped: 0 });
    expect(res.body.errors.map((e: { error: string }) => e.error)).toEqual([FREE_COLLECTIONS, FREE_COLLECTIONS, FREE_COLLECTIONS]);
    expect(await countOf(system, tenant, 'tools')).toBe(0);
  });

  it('holds a stream to the limit: the flush writes 50 of 60 lines', async () => {
    const tenant = newTenant();
    const body = records(60).map((r) => JSON.stringify(r)).join('\n') + '\n';
    const res = await as(system.ingestion, tenant, ['upload'], 'free').post('/upload/events/event/stream').set('content-type', 'application/x-ndjson').send(body);
    expect(res.status).toBe(200);
    await eventually(async () => expect(await countOf(system, tenant, 'events')).toBe(50));
    await new Promise((r) => setTimeout(r, 300));
    expect(await countOf(system, tenant, 'events')).toBe(50);
  });

  it('answers a webhook push past the limit with its records rejected for the reason', async () => {
    const tenant = newTenant();
    await batch(tenant, 'free', 'hooks', { records: records(49) });
    const res = await as(system.ingestion, tenant, ['upload'], 'free')
      .post('/webhooks/upload/hooks/event')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ records: records(3, 'Hook') }));
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 3, accepted: 1, rejected: 2, dedup_skipped: 0 });
    expect(res.body.errors.map((e: { record_index: number; error: string }) => [e.record_index, e.error])).toEqual([
      [1, RECORD_LIMIT],
      [2, RECORD_LIMIT],
    ]);
  });

  it('leaves enterprise tenants, and another free tenant at the same moment, unaffected', async () => {
    const full = newTenant();
    const other = newTenant();
    const unlimited = newTenant();
    await batch(full, 'free', 'bolts', { records: records(50) });
    const [refused, fresh, big] = await Promise.all([
      batch(full, 'free', 'bolts', { records: records(5, 'Nut') }),
      batch(other, 'free', 'bolts', { records: records(5, 'Nut') }),
      batch(unlimited, 'enterprise', 'bolts', { records: records(120) }),
    ]);
    expect(refused.body.summary).toMatchObject({ accepted: 0, rejected: 5 });
    expect(fresh.body.summary).toMatchObject({ accepted: 5, rejected: 0 });
    expect(big.body.summary).toMatchObject({ accepted: 120, rejected: 0 });
    expect(await countOf(system, unlimited, 'bolts')).toBe(120);
  });
});
