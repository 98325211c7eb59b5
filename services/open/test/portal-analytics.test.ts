import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { usagePeriodOf } from '@trove/contracts';
import { product, startSystem, type System } from './helpers';

let sys: System;

beforeAll(async () => {
  sys = await startSystem({ OPEN_SEARCH_LIMIT_PER_MINUTE: '100000' });
});
afterAll(() => sys.stop());

/** GET /portal/analytics as a person signed in to the tenant's portal (the gateway's forwarded portal identity). */
const analytics = (tenant: string, principal = `user:${randomUUID()}`) =>
  request(sys.open.instance.app).get('/portal/analytics').set(sys.open.as(tenant, ['admin'], principal));

async function create(t: ReturnType<System['tenant']>, overrides: Record<string, unknown>) {
  const res = await t.records.post('/records', product(overrides));
  expect(res.status).toBe(201);
}

describe('GET /portal/analytics', () => {
  it("counts the tenant's Open searches per collection beside its record and public counts, and nothing of another tenant", async () => {
    const a = sys.tenant();
    const b = sys.tenant();
    await create(a, { collection: 'gauges', name: 'Pressure gauge analytic' });
    await create(a, { collection: 'gauges', name: 'Private gauge analytic', visibility: 'private' });
    await create(a, { collection: 'meters', name: 'Flow meter', visibility: 'private' });
    await create(b, { collection: 'gauges', name: 'Pressure gauge analytic too' });
    const open = sys.client();
    expect((await open.post('/search', { query: 'gauge analytic' })).status).toBe(200);
    expect((await open.get('/search/gauges?q=pressure')).status).toBe(200);

    const res = await analytics(a.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tenant_id: a.id,
      period: usagePeriodOf(new Date()),
      total_open_searches: 2,
      collections: [
        { collection: 'gauges', record_count: 2, public_count: 1, open_searches: 2, last_updated: expect.any(String) },
        { collection: 'meters', record_count: 1, public_count: 0, open_searches: 0, last_updated: expect.any(String) },
      ],
    });
    expect((await analytics(b.id)).body).toMatchObject({
      tenant_id: b.id,
      total_open_searches: 2,
      collections: [{ collection: 'gauges', record_count: 1, public_count: 1, open_searches: 2 }],
    });
  });

  it('answers an empty month for a new account', async () => {
    const tenant = randomUUID();
    const res = await analytics(tenant);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant_id: tenant, period: usagePeriodOf(new Date()), total_open_searches: 0, collections: [] });
  });

  it('refuses an API key identity (401)', async () => {
    const res = await analytics(randomUUID(), `key:${randomUUID()}`);
    expect(res.status).toBe(401);
  });
});
