import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, usagePeriodOf, type UsageEvent } from '@trove/contracts';
import { listen, type RunningServer } from '@trove/platform';
import { recordsModule } from '@trove/records-service';
import { createTestDatabase, eventually, startTestService, type TestDatabase, type TestService } from '@trove/testing';
import { authModule } from '../src';

let db: TestDatabase;
let records: TestService;
let server: RunningServer;
let auth: TestService;

beforeAll(async () => {
  db = await createTestDatabase();
  records = await startTestService(recordsModule, { database: db.database });
  server = await listen(records.instance.app, 0, '127.0.0.1');
  auth = await startTestService(authModule, { database: db.database, config: { RECORDS_URL: `http://127.0.0.1:${server.port}` } });
});
afterAll(async () => {
  await auth.stop();
  await server.close(1000);
  await records.stop();
  await db.drop();
});

/** A person signed in to the portal for the tenant, as the gateway forwards a portal token. */
const portal = (tenant: string) => auth.as(tenant, ['admin'], `user:${randomUUID()}`);
const quickstart = (tenant: string) => request(auth.instance.app).get('/portal/quickstart').set(portal(tenant));
const usage = (tenant: string) => request(auth.instance.app).get('/portal/usage').set(portal(tenant));

async function publish(...facts: UsageEvent[]): Promise<void> {
  await auth.bus.publish(facts.map((payload) => ({ topic: TOPICS.usageEvents, key: payload.tenant_id, payload })));
}

const now = () => new Date().toISOString();
const searches = (tenant: string, count: number, event_id = randomUUID()): UsageEvent => ({
  kind: 'searches',
  event_id,
  tenant_id: tenant,
  period: usagePeriodOf(new Date()),
  count,
  at: now(),
});

async function newTenant(plan: 'free' | 'pro' | 'scale' | 'enterprise'): Promise<string> {
  const id = randomUUID();
  await db.database.db.insertInto('auth.tenants').values({ id, name: null, plan }).execute();
  return id;
}

const stepsOf = (body: { steps: Array<{ id: string; completed: boolean }> }) => Object.fromEntries(body.steps.map((s) => [s.id, s.completed]));

describe('GET /portal/quickstart', () => {
  it('lists the four steps in order, none completed for a new account', async () => {
    const res = await quickstart(await newTenant('free'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      steps: ['create_api_key', 'define_schema', 'upload_data', 'first_search'].map((id) => ({
        id,
        title: expect.any(String),
        completed: false,
        completed_at: null,
      })),
      all_completed: false,
    });
  });

  it('completes each step by what proves it: the first key, and the first records, upload and searches facts', async () => {
    const tenant = await newTenant('free');
    const key = await request(auth.instance.app).post('/auth/keys').set(auth.as(tenant, ['admin'], `dev:${tenant}`)).send({ name: 'k', scopes: ['search'] });
    expect(key.status).toBe(201);
    expect(stepsOf((await quickstart(tenant)).body)).toEqual({ create_api_key: true, define_schema: false, upload_data: false, first_search: false });

    const firstRecords = '2025-01-02T03:04:05.000Z';
    await publish({ kind: 'records', tenant_id: tenant, record_types: ['product'], created: 2, at: firstRecords });
    await publish({ kind: 'upload', tenant_id: tenant, upload_id: randomUUID(), at: now() }, searches(tenant, 1));
    await eventually(async () => expect((await quickstart(tenant)).body.all_completed).toBe(true));

    // A later proof leaves the completion time as the first one set it.
    await publish({ kind: 'records', tenant_id: tenant, record_types: ['other'], created: 1, at: now() });
    await publish(searches(tenant, 1));
    await eventually(async () => expect((await usage(tenant)).body.searches.used).toBe(2));
    const body = (await quickstart(tenant)).body;
    expect(body.steps.find((s: { id: string }) => s.id === 'define_schema')).toEqual({
      id: 'define_schema',
      title: expect.any(String),
      completed: true,
      completed_at: firstRecords,
    });
    for (const step of body.steps) expect(Date.parse(step.completed_at)).not.toBeNaN();
  });

  it("never shows another tenant's progress", async () => {
    const tenant = await newTenant('free');
    const other = await newTenant('free');
    await publish({ kind: 'upload', tenant_id: other, upload_id: randomUUID(), at: now() }, searches(other, 3));
    await eventually(async () => expect(stepsOf((await quickstart(other)).body).upload_data).toBe(true));
    expect(stepsOf((await quickstart(tenant)).body)).toEqual({ create_api_key: false, define_schema: false, upload_data: false, first_search: false });
    expect((await usage(tenant)).body.searches.used).toBe(0);
  });
});

describe('GET /portal/usage', () => {
  it("reports a free tenant's month: records from records, searches from the counter, limits from the plan", async () => {
    const tenant = await newTenant('free');
    const writer = () => request(records.instance.app).post('/records').set(records.as(tenant, ['records']));
    for (const name of ['Bolt', 'Nut']) expect((await writer().send({ name, collection: 'parts', record_type: 'product' })).status).toBe(201);
    await publish(searches(tenant, 40), searches(tenant, 20));
    await eventually(async () => expect((await usage(tenant)).body.searches.used).toBe(60));

    const res = await usage(tenant);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tenant_id: tenant,
      plan: 'free',
      period: usagePeriodOf(new Date()),
      records: { used: 2, included: 50, overage: 0, overage_cost: 0 },
      // Free blocks overage: what went beyond is shown, never priced.
      searches: { used: 60, included: 50, overage: 10, overage_cost: 0 },
      rate_limit: { requests_per_minute: 60, search_per_minute: 20, max_collections: 1 },
      allows_overage: false,
      estimated_overage_total: 0,
    });
  });

  it('prices search overage per 1,000 on a paid plan and shows unlimited figures as null and -1', async () => {
    const pro = await newTenant('pro');
    await publish(searches(pro, 51_000));
    await eventually(async () => expect((await usage(pro)).body.searches).toEqual({ used: 51_000, included: 50_000, overage: 1_000, overage_cost: 1.5 }));
    expect((await usage(pro)).body).toMatchObject({ allows_overage: true, estimated_overage_total: 1.5 });

    const enterprise = await newTenant('enterprise');
    expect((await usage(enterprise)).body).toMatchObject({
      plan: 'enterprise',
      records: { used: 0, included: null, overage: 0, overage_cost: 0 },
      searches: { used: 0, included: null, overage: 0, overage_cost: 0 },
      rate_limit: { requests_per_minute: 10_000, search_per_minute: 10_000, max_collections: -1 },
    });
  });

  it('counts a searches fact once however often it is delivered', async () => {
    const tenant = await newTenant('scale');
    const fact = searches(tenant, 7);
    await publish(fact, fact);
    await publish(fact, searches(tenant, 1));
    await eventually(async () => expect((await usage(tenant)).body.searches.used).toBe(8));
    await new Promise((r) => setTimeout(r, 300));
    expect((await usage(tenant)).body.searches.used).toBe(8);
  });
});

describe('portal identity', () => {
  it('refuses an API key identity on the usage and quickstart routes (401)', async () => {
    const tenant = await newTenant('free');
    for (const path of ['/portal/usage', '/portal/quickstart']) {
      const res = await request(auth.instance.app).get(path).set(auth.as(tenant, ['admin'], `key:${randomUUID()}`));
      expect(res.status).toBe(401);
    }
  });
});
