import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import request from 'supertest';
import { BILLING_USAGE, TOPICS, usagePeriodOf, type Plan, type UsageEvent } from '@trove/contracts';
import { listen, type RunningServer } from '@trove/platform';
import { recordsModule } from '@trove/records-service';
import { createTestDatabase, eventually, startTestService, type TestDatabase, type TestService } from '@trove/testing';
import { billingModule, setTenantPlan } from '../src';

let db: TestDatabase;
let records: TestService;
let server: RunningServer;
let billing: TestService;

beforeAll(async () => {
  db = await createTestDatabase();
  records = await startTestService(recordsModule, { database: db.database });
  server = await listen(records.instance.app, 0, '127.0.0.1');
  billing = await startTestService(billingModule, { database: db.database, config: { RECORDS_URL: `http://127.0.0.1:${server.port}` } });
});
afterAll(async () => {
  await billing.stop();
  await server.close(1000);
  await records.stop();
  await db.drop();
});

/** A person signed in to the portal for the tenant, as the gateway forwards a portal token. */
const portal = (tenant: string) => billing.as(tenant, ['admin'], `user:${randomUUID()}`);
/** An API key of the tenant, as the gateway forwards one. */
const key = (tenant: string, scopes: Array<'search' | 'upload' | 'records' | 'admin'> = ['search']) => billing.as(tenant, scopes, `key:${randomUUID()}`);
const portalUsage = (tenant: string) => request(billing.instance.app).get('/portal/usage').set(portal(tenant));
const keyUsage = (tenant: string) => request(billing.instance.app).get('/usage').set(key(tenant));
const counted = (tenant: string) => request(billing.instance.app).get(BILLING_USAGE.path).query({ tenant_id: tenant }).set(billing.as(tenant, ['admin'], 'service:gateway', 'gateway'));

async function publish(...facts: UsageEvent[]): Promise<void> {
  await billing.bus.publish(facts.map((payload) => ({ topic: TOPICS.usageEvents, key: payload.tenant_id, payload })));
}

const now = () => new Date().toISOString();
const today = () => now().slice(0, 10);
/** Every day of this month up to today, with the given counts and zeros elsewhere. */
function daysSoFar(counts: Record<string, number>): Array<{ date: string; count: number }> {
  const days = Array.from({ length: new Date().getUTCDate() }, (_, i) => `${period()}-${String(i + 1).padStart(2, '0')}`);
  return days.map((date) => ({ date, count: counts[date] ?? 0 }));
}
const period = () => usagePeriodOf(new Date());
const searches = (tenant: string, count: number, event_id = randomUUID()): UsageEvent => ({ kind: 'searches', event_id, tenant_id: tenant, period: period(), count, at: now() });
const requests = (tenant: string, count: number, event_id = randomUUID()): UsageEvent => ({ kind: 'requests', event_id, tenant_id: tenant, period: period(), count, at: now() });

/** A tenant on a plan billing set (a tenant without one is on the deployment's default, enterprise when self-hosted). */
async function newTenant(plan?: Plan): Promise<string> {
  const id = randomUUID();
  if (plan) await billing.database.db.transaction().execute((trx) => setTenantPlan(trx, billing.bus, { tenant_id: id, plan, changed_at: new Date() }));
  return id;
}

async function createRecords(tenant: string, ...names: string[]): Promise<void> {
  for (const name of names) {
    const res = await request(records.instance.app).post('/records').set(records.as(tenant, ['records'])).send({ name, collection: 'parts', record_type: 'product' });
    expect(res.status).toBe(201);
  }
}

describe('GET /usage', () => {
  it("answers the key's tenant's requests, searches and active records of the month, whatever the key's scopes", async () => {
    const tenant = await newTenant();
    await createRecords(tenant, 'Bolt', 'Nut', 'Washer');
    await publish(searches(tenant, 4), requests(tenant, 30), requests(tenant, 12));
    await eventually(async () => expect((await keyUsage(tenant)).body.usage.requests).toBe(42));

    for (const scopes of [['search'], ['upload'], ['records'], ['admin']] as const) {
      const res = await request(billing.instance.app).get('/usage').set(key(tenant, [...scopes]));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tenant_id: tenant, usage: { requests: 42, searches: 4, records: 3 } });
    }
  });

  it('answers zeros for a tenant nothing was counted for yet', async () => {
    const tenant = await newTenant();
    expect((await keyUsage(tenant)).body).toEqual({ tenant_id: tenant, usage: { requests: 0, searches: 0, records: 0 } });
  });

  it('counts only the month it is asked in: a fact of another period is kept apart', async () => {
    const tenant = await newTenant();
    const marker = await newTenant();
    await publish({ ...searches(tenant, 9), period: '2020-01' }, requests(marker, 1));
    await eventually(async () => expect((await keyUsage(marker)).body.usage.requests).toBe(1));
    expect((await keyUsage(tenant)).body.usage).toEqual({ requests: 0, searches: 0, records: 0 });
  });

  it('refuses a request without an identity (401)', async () => {
    expect((await request(billing.instance.app).get('/usage')).status).toBe(401);
  });
});

describe('GET /portal/usage', () => {
  it("reports a free tenant's month: records from records, searches from the counter, limits from the plan", async () => {
    const tenant = await newTenant('free');
    await createRecords(tenant, 'Bolt', 'Nut');
    await publish(searches(tenant, 40), searches(tenant, 20));
    await eventually(async () => expect((await portalUsage(tenant)).body.searches.used).toBe(60));

    const res = await portalUsage(tenant);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tenant_id: tenant,
      plan: 'free',
      period: period(),
      records: { used: 2, included: 50, overage: 0, overage_cost: 0 },
      // Free blocks overage: what went beyond is shown, never priced.
      searches: { used: 60, included: 50, overage: 10, overage_cost: 0 },
      searches_by_day: daysSoFar({ [today()]: 60 }),
      rate_limit: { requests_per_minute: 60, search_per_minute: 20, max_collections: 1 },
      allows_overage: false,
      estimated_overage_total: 0,
    });
  });

  it('prices search overage per 1,000 on a paid plan and shows unlimited figures as null and -1', async () => {
    const pro = await newTenant('pro');
    await publish(searches(pro, 51_000));
    await eventually(async () => expect((await portalUsage(pro)).body.searches).toEqual({ used: 51_000, included: 50_000, overage: 1_000, overage_cost: 1.5 }));
    expect((await portalUsage(pro)).body).toMatchObject({ allows_overage: true, estimated_overage_total: 1.5 });

    const enterprise = await newTenant('enterprise');
    expect((await portalUsage(enterprise)).body).toMatchObject({
      plan: 'enterprise',
      records: { used: 0, included: null, overage: 0, overage_cost: 0 },
      searches: { used: 0, included: null, overage: 0, overage_cost: 0 },
      rate_limit: { requests_per_minute: 10_000, search_per_minute: 10_000, max_collections: -1 },
    });
  });

  it('reports the plan billing last set, and the self-hosted default (enterprise) for a tenant it never set one for', async () => {
    const tenant = await newTenant();
    expect((await portalUsage(tenant)).body.plan).toBe('enterprise');
    await billing.database.db.transaction().execute((trx) => setTenantPlan(trx, billing.bus, { tenant_id: tenant, plan: 'scale', changed_at: new Date() }));
    expect((await portalUsage(tenant)).body).toMatchObject({ plan: 'scale', searches: { included: 500_000 } });
    // A change older than the one in place (events out of order) changes nothing.
    const stale = await billing.database.db
      .transaction()
      .execute((trx) => setTenantPlan(trx, billing.bus, { tenant_id: tenant, plan: 'free', changed_at: new Date(Date.now() - 60_000) }));
    expect(stale).toBeUndefined();
    expect((await portalUsage(tenant)).body.plan).toBe('scale');
  });

  it('charts searches per day: each fact on the UTC day it was tallied, once however often it is delivered, only the tenant\'s own', async () => {
    const tenant = await newTenant('pro');
    const other = await newTenant('pro');
    const first = `${period()}-01`;
    const onFirst = { ...searches(tenant, 5), at: `${first}T08:00:00.000Z` };
    const late = searches(tenant, 3);
    await publish(onFirst, late, onFirst, searches(other, 100));
    await publish(late, searches(tenant, 2));
    await eventually(async () => expect((await portalUsage(tenant)).body.searches.used).toBe(10));
    await eventually(async () => expect((await portalUsage(other)).body.searches.used).toBe(100));

    const counts = today() === first ? { [first]: 10 } : { [first]: 5, [today()]: 5 };
    expect((await portalUsage(tenant)).body.searches_by_day).toEqual(daysSoFar(counts));
    expect((await portalUsage(other)).body.searches_by_day).toEqual(daysSoFar({ [today()]: 100 }));
    // A fact of last month tallied after midnight stays on last month's last day: never on this month's chart.
    const marker = await newTenant('pro');
    await publish({ ...searches(marker, 4), period: '2020-01', at: '2020-02-01T00:00:03.000Z' }, searches(marker, 1));
    await eventually(async () => expect((await portalUsage(marker)).body.searches.used).toBe(1));
    expect((await portalUsage(marker)).body.searches_by_day).toEqual(daysSoFar({ [today()]: 1 }));
    const stored = await billing.database.db
      .selectFrom('billing.usage_days')
      .select(sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'))
      .where('tenant_id', '=', marker)
      .where('day', '<', '2020-03-01')
      .execute();
    expect(stored).toEqual([{ day: '2020-01-31' }]);
  });

  it('refuses an API key identity (401)', async () => {
    const tenant = await newTenant('free');
    const res = await request(billing.instance.app).get('/portal/usage').set(key(tenant, ['admin']));
    expect(res.status).toBe(401);
  });
});

describe('counting usage.events', () => {
  it('counts a searches or requests fact once however often it is delivered', async () => {
    const tenant = await newTenant('scale');
    const s = searches(tenant, 7);
    const r = requests(tenant, 11);
    await publish(s, s, r);
    await publish(s, r, searches(tenant, 1), requests(tenant, 2));
    await eventually(async () => expect((await keyUsage(tenant)).body.usage).toMatchObject({ searches: 8, requests: 13 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await keyUsage(tenant)).body.usage).toMatchObject({ searches: 8, requests: 13 });
    expect((await portalUsage(tenant)).body.searches.used).toBe(8);
  });

  it("never counts another tenant's facts", async () => {
    const tenant = await newTenant('free');
    const other = await newTenant('free');
    await createRecords(other, 'Gear');
    await publish(searches(other, 3), requests(other, 5));
    await eventually(async () => expect((await keyUsage(other)).body.usage).toEqual({ requests: 5, searches: 3, records: 1 }));
    expect((await keyUsage(tenant)).body.usage).toEqual({ requests: 0, searches: 0, records: 0 });
    expect((await portalUsage(tenant)).body).toMatchObject({ records: { used: 0 }, searches: { used: 0 } });
  });

  it('skips a malformed fact and goes on counting the ones after it', async () => {
    const tenant = await newTenant();
    await billing.bus.publish([{ topic: TOPICS.usageEvents, key: tenant, payload: { kind: 'searches', tenant_id: tenant, count: 'many' } }]);
    await publish(searches(tenant, 2));
    await eventually(async () => expect((await keyUsage(tenant)).body.usage.searches).toBe(2));
  });
});

describe(`GET ${BILLING_USAGE.path}`, () => {
  it("answers a tenant's counted searches and requests of the current period", async () => {
    const tenant = await newTenant();
    await publish(searches(tenant, 6), requests(tenant, 9));
    await eventually(async () => expect((await counted(tenant)).body).toEqual({ tenant_id: tenant, period: period(), searches: 6, requests: 9 }));
  });

  it('answers 422 in the specified shape for a missing or malformed tenant id', async () => {
    const tenant = randomUUID();
    for (const query of [{}, { tenant_id: 'nope' }]) {
      const res = await request(billing.instance.app).get(BILLING_USAGE.path).query(query).set(billing.as(tenant, ['admin'], 'service:gateway', 'gateway'));
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'tenant_id'], type: expect.any(String) });
    }
  });
});
