import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { testClient } from '@trove/testing';
import { as, newTenant, startSystem, type System } from '../../test/helpers';

/** GET /uploads (and the portal's /portal/uploads): the tenant's uploads, newest first, by status. */
let system: System;

beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

async function batches(tenant: string, n: number): Promise<string[]> {
  const api = as(system.ingestion, tenant);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await api.post(`/upload/listed/product/batch`).send({ records: [{ name: `r${i}` }] })).body.upload_id);
    // Each a millisecond later than the one before, so newest first is the order they were sent in (ties go by id).
    await new Promise((r) => setTimeout(r, 2));
  }
  return ids;
}

describe('GET /uploads', () => {
  it('lists the tenant’s uploads newest first, a page at a time, and no other tenant’s', async () => {
    const tenant = newTenant();
    const ids = await batches(tenant, 5);
    await batches(newTenant(), 2);
    const api = as(system.ingestion, tenant);

    const first = await api.get('/uploads?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((u: { id: string }) => u.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    expect(first.body.items[0]).toMatchObject({
      status: 'complete',
      collection: 'listed',
      record_type: 'product',
      source_type: 'api',
      summary: { submitted: 1, accepted: 1 },
      progress: { records_read: 1, records_total: 1 },
      failure: null,
    });
    expect(first.body.items[0]).not.toHaveProperty('errors');

    const second = await api.get(`/uploads?limit=2&cursor=${first.body.cursor}`);
    const third = await api.get(`/uploads?limit=2&cursor=${second.body.cursor}`);
    expect([...second.body.items, ...third.body.items].map((u: { id: string }) => u.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect([third.body.has_more, third.body.cursor]).toEqual([false, null]);
  });

  it('lists those of one status: processing ones are those running', async () => {
    const tenant = newTenant();
    const [done] = await batches(tenant, 1);
    // An upload a process is running, as its row reads meanwhile.
    const running = randomUUID();
    await sql`insert into ingestion.uploads (id, tenant_id, collection, record_type, source_type, source_name, submitted, accepted, bytes_read, bytes_total)
      values (${running}, ${tenant}, 'big', 'product', 'file_upload', 'big.csv', 1200, 1000, 524288, 1048576)`.execute(system.ingestion.ctx.database.db);
    const api = as(system.ingestion, tenant);

    const processing = await api.get('/uploads?status=processing');
    expect(processing.body.items).toEqual([
      expect.objectContaining({
        id: running,
        status: 'processing',
        summary: { submitted: 1200, accepted: 1000, rejected: 0, dedup_skipped: 0 },
        progress: { records_read: 1200, records_total: null, bytes_read: 524288, bytes_total: 1048576 },
        completed_at: null,
        metadata: { processing_time_ms: null, file_hash: null, reconciliation_passed: null, pipeline_backpressure: null },
      }),
    ]);
    expect((await api.get('/uploads?status=complete')).body.items.map((u: { id: string }) => u.id)).toEqual([done]);
    expect((await api.get('/uploads?status=failed')).body.items).toEqual([]);
    expect((await api.get(`/uploads/${running}`)).body).toMatchObject({ status: 'processing', errors: [], progress: { bytes_read: 524288 } });
    expect((await as(system.ingestion, newTenant()).get('/uploads?status=processing')).body.items).toEqual([]);
  });

  it('answers 422 for a status, limit or cursor it does not know', async () => {
    const api = as(system.ingestion, newTenant());
    expect((await api.get('/uploads?status=done')).status).toBe(422);
    expect((await api.get('/uploads?limit=0')).status).toBe(422);
    expect((await api.get('/uploads?limit=101')).status).toBe(422);
    const bad = await api.get('/uploads?cursor=not-a-cursor');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'cursor']);
  });

  it('needs the upload scope', async () => {
    expect((await as(system.ingestion, newTenant(), ['search']).get('/uploads')).status).toBe(403);
  });
});

describe('the portal’s uploads', () => {
  it('reads the signed-in tenant’s uploads as /uploads does, and refuses a key’s identity', async () => {
    const tenant = newTenant();
    const [id] = await batches(tenant, 1);
    const portal = testClient(system.ingestion, tenant, ['admin'], { principal: `user:${randomUUID()}` });
    expect((await portal.get('/portal/uploads')).body.items.map((u: { id: string }) => u.id)).toEqual([id]);
    expect((await portal.get(`/portal/uploads/${id}`)).body).toMatchObject({ id, status: 'complete' });
    expect((await portal.get(`/portal/uploads/${id}/errors`)).body).toEqual([]);
    const other = testClient(system.ingestion, newTenant(), ['admin'], { principal: `user:${randomUUID()}` });
    expect((await other.get(`/portal/uploads/${id}`)).status).toBe(404);
    expect((await as(system.ingestion, tenant, ['admin']).get('/portal/uploads')).status).toBe(401);
  });
});
