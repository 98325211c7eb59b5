import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus } from '@trove/bus';
import { TOPICS, usagePeriodOf } from '@trove/contracts';
import { createLogger } from '@trove/platform';
import { createTestDatabase, eventually, type TestDatabase } from '@trove/testing';
import { PRICE_PRO, PRICE_SCALE, WEBHOOK_SECRET, checkoutCompleted, signed } from '../services/billing/test/payment-events';
import { startStripeStandIn, type StripeStandIn } from '../services/billing/test/stripe-stand-in';
import { portalAuth, signUp } from './support/portal';
import { bearer, client, startTrove, type Trove } from './support/system';

jest.setTimeout(180_000);

const METER_INTERVAL_MS = 500;
const PRO_SEARCHES = 50_000;

let stripe: StripeStandIn;
let db: TestDatabase;
let bus: EventBus;
let trove: Trove | undefined;

// The system runs on a PostgreSQL database of the test's own (not PGlite), so it can be stopped and started again on
// the same data while the test publishes on the same event log.
const env = () => ({
  DEPLOYMENT_MODE: 'cloud',
  DATABASE_URL: db.url,
  // Fixed, so the portal token signed before the restart is still valid after it.
  JWT_SECRET: 'metering-e2e-portal-token-secret-of-32-chars',
  STRIPE_SECRET_KEY: 'sk_test_trove_metering_e2e',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_PRO: PRICE_PRO,
  STRIPE_PRICE_SCALE: PRICE_SCALE,
  STRIPE_API_URL: stripe.url,
  BILLING_METER_INTERVAL_MS: String(METER_INTERVAL_MS),
});

beforeAll(async () => {
  stripe = await startStripeStandIn();
  db = await createTestDatabase();
  bus = await createEventBus({ database: db.database, logger: createLogger({ level: 'silent' }) });
});
afterAll(async () => {
  await trove?.stop();
  await bus?.close();
  await db?.drop();
  await stripe?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("counts a paid tenant's search overage and reports it to the meter exactly once across a restart", async () => {
  trove = await startTrove({ env: env() });
  let api = client(trove.baseUrl);
  const { token, account } = await signUp(api);
  const tenant = account.tenant_id;
  const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'search', scopes: ['admin'] } });
  expect(key.status).toBe(201);
  const withKey = bearer(key.body.key);
  expect((await api('POST', '/api/v1/records', { headers: withKey, body: { name: 'Hex bolt M8', collection: 'parts', record_type: 'product' } })).status).toBe(201);

  const customer = `cus_${randomUUID().slice(0, 8)}`;
  const { body, signature } = signed(checkoutCompleted(tenant, { plan: 'pro', customer, subscription: `sub_${randomUUID().slice(0, 8)}` }));
  expect((await api('POST', '/api/v1/billing/payment/webhook', { raw: body, headers: { 'stripe-signature': signature } })).status).toBe(200);
  await eventually(async () => {
    const usage = await api('GET', '/api/v1/portal/usage', { headers: portalAuth(token) });
    expect(usage.body.plan).toBe('pro');
  });

  // The month so far: its allowance used up. Fifty thousand searches through the gateway would take the pro plan's
  // 300 a minute nearly three hours, so they arrive as the fact search publishes for them on usage.events.
  await bus.publish([
    {
      topic: TOPICS.usageEvents,
      key: tenant,
      payload: { kind: 'searches', tenant_id: tenant, at: new Date().toISOString(), event_id: randomUUID(), period: usagePeriodOf(new Date()), count: PRO_SEARCHES },
    },
  ]);
  // Three more, through the gateway: the overage.
  const search = async () => {
    const res = await api('POST', '/api/v1/search/parts', { headers: withKey, body: { query: `bolt ${randomUUID()}` } });
    expect(res.status).toBe(200);
  };
  for (let i = 0; i < 3; i++) await search();

  const reported = () => stripe.meterEvents.filter((e) => e.payload.stripe_customer_id === customer);
  const total = () => reported().reduce((sum, e) => sum + Number(e.payload.value), 0);
  await eventually(async () => expect(total()).toBe(3), 30_000);
  expect(reported()).toEqual([
    { event_name: 'trove_search', identifier: expect.stringContaining(tenant), payload: { stripe_customer_id: customer, value: '3' }, timestamp: expect.any(Number) },
  ]);
  const usage = await api('GET', '/api/v1/portal/usage', { headers: portalAuth(token) });
  expect(usage.status).toBe(200);
  expect(usage.body.searches).toMatchObject({ used: PRO_SEARCHES + 3, included: PRO_SEARCHES, overage: 3 });

  // A clean restart on the same data: several meter runs later, nothing was reported again.
  await trove.stop();
  trove = await startTrove({ env: env() });
  api = client(trove.baseUrl);
  await sleep(6 * METER_INTERVAL_MS);
  expect(reported()).toHaveLength(1);
  expect(total()).toBe(3);

  // Searches after the restart are the next report's, and only theirs.
  for (let i = 0; i < 2; i++) await search();
  await eventually(async () => expect(total()).toBe(5), 30_000);
  await sleep(4 * METER_INTERVAL_MS);
  expect(reported()).toHaveLength(2);
  expect(new Set(reported().map((e) => e.identifier)).size).toBe(2);
  const after = await api('GET', '/api/v1/portal/usage', { headers: portalAuth(token) });
  expect(after.body.searches).toMatchObject({ used: PRO_SEARCHES + 5, overage: 5 });
  // The day's count is kept with the month's, from the same facts: once each across the restart.
  const today = new Date().toISOString().slice(0, 10);
  expect(after.body.searches_by_day.find((d: { date: string }) => d.date === today)).toEqual({ date: today, count: PRO_SEARCHES + 5 });
  expect(after.body.searches_by_day.reduce((sum: number, d: { count: number }) => sum + d.count, 0)).toBe(PRO_SEARCHES + 5);
});
