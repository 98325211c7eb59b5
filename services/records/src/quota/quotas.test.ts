import { RECORDS_BULK_UPSERT, bulkUpsertResponse } from '@trove/contracts';
import { sql } from '@trove/db';
import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;

beforeAll(async () => {
  h = await startRecords();
});
afterAll(() => h.stop());

const RECORD_LIMIT = 'Record limit reached: the free plan allows 50 active records.';
const FREE_COLLECTIONS = 'Collection limit reached: the free plan allows 1 collection.';

/** A tenant on a plan, through the key routes (records scope) and as ingestion's bulk upsert (upload scope). */
function tenantOn(plan?: string) {
  const id = newTenant();
  return { id, api: h.as(id, ['records'], plan), ingest: h.as(id, ['upload'], plan) };
}

async function upsert(client: Client, records: Array<{ name: string; source_id?: string }>, collection = 'fasteners') {
  const res = await client.post(RECORDS_BULK_UPSERT.path, { collection, record_type: 'product', source_type: 'file_upload', records });
  expect(res.status).toBe(200);
  return bulkUpsertResponse.parse(res.body).results;
}

const items = (n: number, prefix = 'Bolt') => Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}`, source_id: `${prefix}-${i}` }));

async function countLive(tenantId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from records.records where tenant_id = ${tenantId} and status = 'active'`.execute(
    h.svc.database.db,
  );
  return rows[0]!.n;
}

describe('record limit', () => {
  it('lets a free tenant create 50 records, answers the 51st with 402 naming the plan and writes nothing', async () => {
    const t = tenantOn('free');
    for (let i = 0; i < 50; i++) expect((await t.api.post('/records', bolt({ name: `Bolt ${i}` }))).status).toBe(201);
    const refused = await t.api.post('/records', bolt({ name: 'Bolt 50' }));
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ detail: RECORD_LIMIT });
    expect(await countLive(t.id)).toBe(50);
    const listed = await t.api.get('/records?limit=100&q=Bolt');
    expect(listed.body.items.map((r: { name: string }) => r.name)).not.toContain('Bolt 50');
  });

  it('leaves another tenant unaffected at the same moment', async () => {
    const full = tenantOn('free');
    const other = tenantOn('free');
    await upsert(full.ingest, items(50));
    const [refused, created] = await Promise.all([full.api.post('/records', bolt()), other.api.post('/records', bolt())]);
    expect(refused.status).toBe(402);
    expect(created.status).toBe(201);
  });

  it('lets exactly one of several creates racing at 49 of 50 through', async () => {
    const t = tenantOn('free');
    await upsert(t.ingest, items(49));
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => t.api.post('/records', bolt({ name: `Racer ${i}` }))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402, 402, 402, 402, 402]);
    expect(await countLive(t.id)).toBe(50);
  });

  it('lets a create and a bulk upsert racing at 45 of 50 write 5 records between them', async () => {
    const t = tenantOn('free');
    await upsert(t.ingest, items(45));
    const [single, bulk] = await Promise.all([t.api.post('/records', bolt({ name: 'Single' })), upsert(t.ingest, items(10, 'Nut'))]);
    const created = bulk.filter((r) => r.status === 'created').length + (single.status === 201 ? 1 : 0);
    expect(created).toBe(5);
    expect(await countLive(t.id)).toBe(50);
  });

  it('refuses the new records of a bulk upsert past the limit with the reason, in item order, and still applies updates', async () => {
    const t = tenantOn('free');
    const first = await upsert(t.ingest, items(45));
    const results = await upsert(t.ingest, [{ name: 'Bolt 0 renamed', source_id: 'Bolt-0' }, ...items(10, 'Nut')]);
    expect(results[0]).toEqual({ status: 'updated', id: (first[0] as { id: string }).id });
    expect(results.slice(1).map((r) => r.status)).toEqual([...Array(5).fill('created'), ...Array(5).fill('refused')]);
    expect(results[10]).toEqual({ status: 'refused', reason: RECORD_LIMIT });
    expect(await countLive(t.id)).toBe(50);
    // The refused ones were not written: sent again, they are refused again rather than skipped as duplicates.
    expect((await upsert(t.ingest, [{ name: 'Nut 9', source_id: 'Nut-9' }]))[0]).toEqual({ status: 'refused', reason: RECORD_LIMIT });
  });

  it('counts neither drafts nor archived records, and holds making a draft active to the limit', async () => {
    const t = tenantOn('free');
    const stored = await upsert(t.ingest, items(50));
    const draft = await t.api.post('/records', bolt({ name: 'Draft', status: 'draft' }));
    expect(draft.status).toBe(201);
    const activate = await t.api.patch(`/records/${draft.body.id}`, { status: 'active' });
    expect(activate.status).toBe(402);
    expect(activate.body).toEqual({ detail: RECORD_LIMIT });
    const bulk = await t.api.patch('/records/bulk', { record_ids: [draft.body.id], update: { status: 'active' } });
    expect(bulk.status).toBe(402);
    expect(await countLive(t.id)).toBe(50);

    expect((await t.api.delete(`/records/${(stored[0] as { id: string }).id}`)).status).toBe(204);
    expect((await t.api.patch(`/records/${draft.body.id}`, { status: 'active' })).status).toBe(200);
    expect((await t.api.post('/records', bolt({ name: 'One more' }))).status).toBe(402);
    expect(await countLive(t.id)).toBe(50);
  });

  it('leaves enterprise, scale and identities without a plan unlimited', async () => {
    for (const plan of ['enterprise', 'scale', undefined]) {
      const t = tenantOn(plan);
      expect((await upsert(t.ingest, items(60))).every((r) => r.status === 'created')).toBe(true);
      expect((await t.api.post('/records', bolt())).status).toBe(201);
      expect(await countLive(t.id)).toBe(61);
    }
  });
});

describe('collection limit', () => {
  it('answers 402 for a free tenant’s second collection, and allows it once the first holds no active records', async () => {
    const t = tenantOn('free');
    const first = await t.api.post('/records', bolt({ collection: 'fasteners' }));
    expect(first.status).toBe(201);
    expect((await t.api.post('/records', bolt({ collection: 'fasteners', name: 'Nut' }))).status).toBe(201);
    const second = await t.api.post('/records', bolt({ collection: 'tools' }));
    expect(second.status).toBe(402);
    expect(second.body).toEqual({ detail: FREE_COLLECTIONS });
    expect((await upsert(t.ingest, items(3), 'tools')).map((r) => r.status)).toEqual(['refused', 'refused', 'refused']);
    expect((await upsert(t.ingest, items(1), 'tools'))[0]).toEqual({ status: 'refused', reason: FREE_COLLECTIONS });
    // A draft stores nothing the plan counts; it is held to the limit when it becomes active.
    const draft = await t.api.post('/records', bolt({ collection: 'tools', status: 'draft' }));
    expect(draft.status).toBe(201);
    expect(await t.api.patch(`/records/${draft.body.id}`, { status: 'active' })).toMatchObject({ status: 402, body: { detail: FREE_COLLECTIONS } });

    const collections = await t.api.get('/collections');
    expect(collections.body.collections.map((c: { name: string }) => c.name)).toEqual(['fasteners']);
    const ids = (await t.api.get('/records?collection=fasteners')).body.items.map((r: { id: string }) => r.id);
    expect((await t.api.post('/records/bulk-delete', { record_ids: ids })).body).toEqual({ deleted: 2 });
    expect((await t.api.post('/records', bolt({ collection: 'tools' }))).status).toBe(201);
  });

  it('answers 402 for a pro tenant’s sixth collection', async () => {
    const t = tenantOn('pro');
    for (let i = 1; i <= 5; i++) expect((await t.api.post('/records', bolt({ collection: `c${i}` }))).status).toBe(201);
    const sixth = await t.api.post('/records', bolt({ collection: 'c6' }));
    expect(sixth.status).toBe(402);
    expect(sixth.body).toEqual({ detail: 'Collection limit reached: the pro plan allows 5 collections.' });
    expect((await t.api.post('/records', bolt({ collection: 'c5', name: 'Nut' }))).status).toBe(201);
  });

  it('lets only one of two first records racing into different collections of a free tenant through', async () => {
    const t = tenantOn('free');
    const answers = await Promise.all([t.api.post('/records', bolt({ collection: 'a' })), t.api.post('/records', bolt({ collection: 'b' }))]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
  });

  it('leaves enterprise tenants any number of collections', async () => {
    const t = tenantOn('enterprise');
    for (let i = 1; i <= 7; i++) expect((await t.api.post('/records', bolt({ collection: `c${i}` }))).status).toBe(201);
  });
});
