import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, usagePeriodOf, type UsageEvent } from '@trove/contracts';
import { createTestDatabase, eventually, startTestService, type TestDatabase, type TestService } from '@trove/testing';
import { authModule } from '../src';

let db: TestDatabase;
let auth: TestService;

beforeAll(async () => {
  db = await createTestDatabase();
  auth = await startTestService(authModule, { database: db.database });
});
afterAll(async () => {
  await auth.stop();
  await db.drop();
});

/** A person signed in to the portal for the tenant, as the gateway forwards a portal token. */
const portal = (tenant: string) => auth.as(tenant, ['admin'], `user:${randomUUID()}`);
const quickstart = (tenant: string) => request(auth.instance.app).get('/portal/quickstart').set(portal(tenant));

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

  it('proves no step by API calls alone', async () => {
    const tenant = await newTenant('free');
    const marker = await newTenant('free');
    const requests: UsageEvent = { kind: 'requests', event_id: randomUUID(), tenant_id: tenant, period: usagePeriodOf(new Date()), count: 5, at: now() };
    await publish(requests, { kind: 'upload', tenant_id: marker, upload_id: randomUUID(), at: now() });
    await eventually(async () => expect(stepsOf((await quickstart(marker)).body).upload_data).toBe(true));
    expect((await quickstart(tenant)).body.steps.every((s: { completed: boolean }) => !s.completed)).toBe(true);
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

    // A later proof leaves the completion time as the first one set it. Events are handled in the order published,
    // so once another tenant's proof published after it shows, this one has been handled.
    const marker = await newTenant('free');
    await publish({ kind: 'records', tenant_id: tenant, record_types: ['other'], created: 1, at: now() });
    await publish(searches(tenant, 1), { kind: 'upload', tenant_id: marker, upload_id: randomUUID(), at: now() });
    await eventually(async () => expect(stepsOf((await quickstart(marker)).body).upload_data).toBe(true));
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
  });
});

describe('portal identity', () => {
  it('refuses an API key identity on the quickstart route (401)', async () => {
    const tenant = await newTenant('free');
    for (const path of ['/portal/quickstart']) {
      const res = await request(auth.instance.app).get(path).set(auth.as(tenant, ['admin'], `key:${randomUUID()}`));
      expect(res.status).toBe(401);
    }
  });
});
