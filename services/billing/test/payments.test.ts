import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, billingEvent, usagePeriodOf, type BillingEvent } from '@trove/contracts';
import { collectEvents, createTestDatabase, eventually, startTestService, type TestDatabase, type TestService } from '@trove/testing';
import { billingModule } from '../src';
import { PRICE_PRO, PRICE_SCALE, WEBHOOK_SECRET, checkoutCompleted, invoiceEvent, signed, subscriptionEvent } from './payment-events';
import { startStripeStandIn, type StripeStandIn } from './stripe-stand-in';

const METER_INTERVAL_MS = 200;
const ANONYMOUS = '00000000-0000-0000-0000-000000000000';

let stripe: StripeStandIn;
let db: TestDatabase;
let svc: TestService;

const cloudConfig = () => ({
  DEPLOYMENT_MODE: 'cloud',
  STRIPE_SECRET_KEY: 'sk_test_trove_stand_in',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_PRO: PRICE_PRO,
  STRIPE_PRICE_SCALE: PRICE_SCALE,
  STRIPE_API_URL: stripe.url,
  BILLING_METER_INTERVAL_MS: String(METER_INTERVAL_MS),
});

beforeAll(async () => {
  stripe = await startStripeStandIn();
  // A database of the test's own, so the service can be stopped and started again on it (the restart test).
  db = await createTestDatabase();
  svc = await startTestService(billingModule, { database: db.database, config: cloudConfig() });
});
afterAll(async () => {
  await svc.stop();
  await db.drop();
  await stripe.close();
});

const portalUser = (tenant: string) => svc.as(tenant, ['admin'], `user:${randomUUID()}`);
const app = () => svc.instance.app;

/** Delivers a provider event to the webhook as the gateway forwards it (anonymous identity, raw body, signature). */
function deliver(event: unknown, opts: { secret?: string; timestamp?: number; tamper?: (body: string) => string } = {}) {
  const { body, signature } = signed(event, opts);
  return request(app())
    .post('/billing/payment/webhook')
    .set(svc.as(ANONYMOUS, [], 'anonymous'))
    .set('content-type', 'application/json')
    .set('stripe-signature', signature)
    .send(opts.tamper ? opts.tamper(body) : body);
}

const status = async (tenant: string) => {
  const res = await request(app()).get('/portal/billing/status').set(portalUser(tenant));
  expect(res.status).toBe(200);
  return res.body as { plan: string; has_subscription: boolean; billing_period_end: string | null; is_cloud: boolean };
};

async function paidTenant(plan = 'pro') {
  const tenant = randomUUID();
  const customer = `cus_${randomUUID().slice(0, 8)}`;
  const subscription = `sub_${randomUUID().slice(0, 8)}`;
  expect((await deliver(checkoutCompleted(tenant, { plan, customer, subscription }))).status).toBe(200);
  return { tenant, customer, subscription };
}

describe('GET /portal/billing/status', () => {
  it('shows a new cloud tenant on free, without subscription or period end', async () => {
    expect(await status(randomUUID())).toEqual({ plan: 'free', has_subscription: false, billing_period_end: null, is_cloud: true });
  });

  it('refuses an identity that is not a portal user (401)', async () => {
    const res = await request(app()).get('/portal/billing/status').set(svc.as(randomUUID(), ['admin'], `key:${randomUUID()}`));
    expect(res.status).toBe(401);
  });
});

describe('POST /portal/billing/checkout', () => {
  const body = { plan: 'pro', success_url: 'https://portal.example/billing/done', cancel_url: 'https://portal.example/billing' };

  it("answers the provider's checkout URL for a subscription to the plan's price, carrying the tenant id", async () => {
    const tenant = randomUUID();
    const res = await request(app()).post('/portal/billing/checkout').set(portalUser(tenant)).send({ ...body, plan: 'scale' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ checkout_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/) });
    const sent = stripe.callsTo('/v1/checkout/sessions').at(-1)!;
    expect(sent.body).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: PRICE_SCALE, quantity: '1' }],
      client_reference_id: tenant,
      metadata: { tenant_id: tenant, plan: 'scale' },
      subscription_data: { metadata: { tenant_id: tenant, plan: 'scale' } },
      success_url: body.success_url,
      cancel_url: body.cancel_url,
    });
    expect(sent.body.customer).toBeUndefined();
  });

  it('reuses the customer the tenant already has at the provider', async () => {
    const { tenant, customer, subscription } = await paidTenant();
    expect((await deliver(subscriptionEvent('customer.subscription.deleted', tenant, { id: subscription, customer }))).status).toBe(200);
    const res = await request(app()).post('/portal/billing/checkout').set(portalUser(tenant)).send(body);
    expect(res.status).toBe(200);
    expect(stripe.callsTo('/v1/checkout/sessions').at(-1)!.body).toMatchObject({ customer, client_reference_id: tenant });
  });

  it('answers 400 for a plan that is not for sale and for a tenant that already pays, 422 for a bad body', async () => {
    const tenant = randomUUID();
    const calls = stripe.calls.length;
    for (const plan of ['free', 'enterprise']) {
      const res = await request(app()).post('/portal/billing/checkout').set(portalUser(tenant)).send({ ...body, plan });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    const paid = await paidTenant();
    expect((await request(app()).post('/portal/billing/checkout').set(portalUser(paid.tenant)).send(body)).status).toBe(400);

    const bad = [{}, { ...body, plan: 'gold' }, { ...body, plan: 7 }, { ...body, success_url: 'not a url' }, { ...body, cancel_url: 'javascript:alert(1)' }, { plan: 'pro' }];
    for (const b of bad) {
      const res = await request(app()).post('/portal/billing/checkout').set(portalUser(tenant)).send(b);
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String), input: expect.anything(), ctx: expect.any(Object) });
    }
    expect(stripe.calls.length).toBe(calls);
  });
});

describe('POST /portal/billing/portal', () => {
  const body = { return_url: 'https://portal.example/billing' };

  it("answers the provider's customer-portal URL for a paying customer", async () => {
    const { tenant, customer } = await paidTenant();
    const res = await request(app()).post('/portal/billing/portal').set(portalUser(tenant)).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ portal_url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\//) });
    expect(stripe.callsTo('/v1/billing_portal/sessions').at(-1)!.body).toEqual({ customer, return_url: body.return_url });
  });

  it('answers 400 for a tenant without a paid subscription and 422 without a return_url', async () => {
    const res = await request(app()).post('/portal/billing/portal').set(portalUser(randomUUID())).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'This account has no paid subscription to manage' });
    const { tenant } = await paidTenant();
    expect((await request(app()).post('/portal/billing/portal').set(portalUser(tenant)).send({})).status).toBe(422);
  });
});

describe('POST /billing/payment/webhook', () => {
  it('refuses a missing, wrong, tampered or stale signature (400) and changes nothing', async () => {
    const tenant = randomUUID();
    const event = checkoutCompleted(tenant);
    const noSignature = await request(app())
      .post('/billing/payment/webhook')
      .set(svc.as(ANONYMOUS, [], 'anonymous'))
      .set('content-type', 'application/json')
      .send(JSON.stringify(event));
    expect(noSignature.status).toBe(400);
    expect((await deliver(event, { secret: 'whsec_not_ours' })).status).toBe(400);
    expect((await deliver(event, { tamper: (b) => b.replace('"plan":"pro"', '"plan":"scale"') })).status).toBe(400);
    const stale = await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 400 });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual({ detail: 'Invalid payment webhook signature' });
    expect((await status(tenant)).plan).toBe('free');
    // The same event, properly signed, is then accepted: nothing of the refused ones was remembered.
    expect((await deliver(event)).status).toBe(200);
    expect((await status(tenant)).plan).toBe('pro');
  });

  it('checkout.session.completed activates the plan and saves the customer and subscription, announced on billing.events', async () => {
    const collected = await collectEvents<BillingEvent>(svc.bus, TOPICS.billingEvents, (p) => billingEvent.parse(p));
    try {
      const { tenant, customer } = await paidTenant('scale');
      expect(await status(tenant)).toEqual({ plan: 'scale', has_subscription: true, billing_period_end: null, is_cloud: true });
      await eventually(async () => expect(collected.events.filter((e) => e.tenant_id === tenant)).toEqual([expect.objectContaining({ kind: 'plan_changed', plan: 'scale' })]));
      // The customer was saved: the portal opens for it.
      await request(app()).post('/portal/billing/portal').set(portalUser(tenant)).send({ return_url: 'https://portal.example' }).expect(200);
      expect(stripe.callsTo('/v1/billing_portal/sessions').at(-1)!.body.customer).toBe(customer);
    } finally {
      await collected.stop();
    }
  });

  it('customer.subscription.updated sets the plan from the price and the period end; deleted reverts to free', async () => {
    const { tenant, customer, subscription } = await paidTenant('pro');
    const periodEnd = Math.floor(Date.now() / 1000) + 10 * 24 * 3600;
    const later = Math.floor(Date.now() / 1000) + 5;
    const upgraded = subscriptionEvent('customer.subscription.updated', tenant, { id: subscription, customer, price: PRICE_SCALE, periodEnd, created: later });
    expect((await deliver(upgraded)).status).toBe(200);
    expect(await status(tenant)).toEqual({ plan: 'scale', has_subscription: true, billing_period_end: new Date(periodEnd * 1000).toISOString(), is_cloud: true });

    const deleted = subscriptionEvent('customer.subscription.deleted', tenant, { id: subscription, customer, price: PRICE_SCALE, created: later + 1 });
    expect((await deliver(deleted)).status).toBe(200);
    expect(await status(tenant)).toEqual({ plan: 'free', has_subscription: false, billing_period_end: null, is_cloud: true });
  });

  it('a subscription event alone (no checkout seen) sets the plan of the tenant in its metadata', async () => {
    const tenant = randomUUID();
    const event = subscriptionEvent('customer.subscription.updated', tenant, { id: 'sub_alone_1', customer: `cus_${randomUUID().slice(0, 8)}`, price: PRICE_PRO });
    expect((await deliver(event)).status).toBe(200);
    expect((await status(tenant)).plan).toBe('pro');
  });

  it('invoice.paid and invoice.payment_failed are acknowledged and change no plan', async () => {
    const { tenant, customer } = await paidTenant('pro');
    expect((await deliver(invoiceEvent('invoice.paid', customer))).status).toBe(200);
    expect((await deliver(invoiceEvent('invoice.payment_failed', customer))).status).toBe(200);
    expect((await status(tenant)).plan).toBe('pro');
  });

  it('the same event delivered twice changes nothing the second time and announces nothing again', async () => {
    const collected = await collectEvents<BillingEvent>(svc.bus, TOPICS.billingEvents, (p) => billingEvent.parse(p));
    try {
      const tenant = randomUUID();
      const customer = `cus_${randomUUID().slice(0, 8)}`;
      const t = Math.floor(Date.now() / 1000);
      const completed = checkoutCompleted(tenant, { customer, subscription: 'sub_dup_1', created: t });
      expect((await deliver(completed)).status).toBe(200);
      const deleted = subscriptionEvent('customer.subscription.deleted', tenant, { id: 'sub_dup_1', customer, created: t + 1 });
      expect((await deliver(deleted)).status).toBe(200);
      // Redelivered (as the provider does after a timeout), freshly signed: no change, no announcement.
      expect((await deliver(completed)).status).toBe(200);
      expect((await deliver(deleted)).status).toBe(200);
      expect((await status(tenant)).plan).toBe('free');
      await eventually(async () => expect(collected.events.filter((e) => e.tenant_id === tenant).map((e) => e.plan)).toEqual(['pro', 'free']));
      await new Promise((r) => setTimeout(r, 300));
      expect(collected.events.filter((e) => e.tenant_id === tenant)).toHaveLength(2);
    } finally {
      await collected.stop();
    }
  });

  it("resolves subscription events arriving out of order by their own times: an older one never undoes a newer", async () => {
    const { tenant, customer, subscription } = await paidTenant('pro');
    const t = Math.floor(Date.now() / 1000) + 10;
    const toScale = subscriptionEvent('customer.subscription.updated', tenant, { id: subscription, customer, price: PRICE_SCALE, created: t + 20 });
    const toPro = subscriptionEvent('customer.subscription.updated', tenant, { id: subscription, customer, price: PRICE_PRO, created: t + 10 });
    expect((await deliver(toScale)).status).toBe(200);
    expect((await deliver(toPro)).status).toBe(200);
    expect((await status(tenant)).plan).toBe('scale');

    const deleted = subscriptionEvent('customer.subscription.deleted', tenant, { id: subscription, customer, created: t + 40 });
    const lateUpdate = subscriptionEvent('customer.subscription.updated', tenant, { id: subscription, customer, price: PRICE_PRO, created: t + 30 });
    expect((await deliver(deleted)).status).toBe(200);
    expect((await deliver(lateUpdate)).status).toBe(200);
    expect(await status(tenant)).toMatchObject({ plan: 'free', has_subscription: false });
  });

  it('a deleted subscription stays deleted: an update of the same second delivered after it does not revive it', async () => {
    const { tenant, customer, subscription } = await paidTenant('pro');
    const t = Math.floor(Date.now() / 1000) + 10;
    expect((await deliver(subscriptionEvent('customer.subscription.deleted', tenant, { id: subscription, customer, created: t }))).status).toBe(200);
    const sameSecond = subscriptionEvent('customer.subscription.updated', tenant, { id: subscription, customer, price: PRICE_SCALE, created: t });
    expect((await deliver(sameSecond)).status).toBe(200);
    expect(await status(tenant)).toMatchObject({ plan: 'free', has_subscription: false });
  });

  it("the end of a subscription the tenant already replaced leaves its new plan", async () => {
    const { tenant, customer, subscription: old } = await paidTenant('pro');
    const t = Math.floor(Date.now() / 1000) + 10;
    expect((await deliver(subscriptionEvent('customer.subscription.deleted', tenant, { id: old, customer, created: t }))).status).toBe(200);
    expect((await deliver(checkoutCompleted(tenant, { plan: 'scale', customer, subscription: 'sub_new_1', created: t + 5 }))).status).toBe(200);
    // A late update of the old subscription, newer than the checkout, is not the tenant's subscription any more.
    const oldUpdate = subscriptionEvent('customer.subscription.updated', tenant, { id: old, customer, price: PRICE_PRO, status: 'canceled', created: t + 9 });
    expect((await deliver(oldUpdate)).status).toBe(200);
    expect((await status(tenant)).plan).toBe('scale');
  });
});

/** Searches of this month counted for the tenant, as search reports them on usage.events. */
async function countSearches(tenant: string, count: number) {
  await svc.bus.publish([
    {
      topic: TOPICS.usageEvents,
      key: tenant,
      payload: { kind: 'searches', tenant_id: tenant, at: new Date().toISOString(), event_id: randomUUID(), period: usagePeriodOf(new Date()), count },
    },
  ]);
}

const reportedFor = (customer: string) => stripe.meterEvents.filter((e) => e.payload.stripe_customer_id === customer);
const total = (customer: string) => reportedFor(customer).reduce((sum, e) => sum + Number(e.payload.value), 0);

describe('search overage metering', () => {
  it("reports a paid tenant's searches beyond its allowance to the trove_search meter, each search once", async () => {
    const { tenant, customer } = await paidTenant('pro');
    await countSearches(tenant, 50_000 + 120);
    await eventually(async () => expect(total(customer)).toBe(120));
    expect(reportedFor(customer)).toEqual([
      { event_name: 'trove_search', identifier: expect.stringContaining(tenant), payload: { stripe_customer_id: customer, value: '120' }, timestamp: expect.any(Number) },
    ]);
    await countSearches(tenant, 30);
    await eventually(async () => expect(total(customer)).toBe(150));
    await new Promise((r) => setTimeout(r, 3 * METER_INTERVAL_MS));
    expect(total(customer)).toBe(150);
    expect(reportedFor(customer)).toHaveLength(2);
  });

  it('reports nothing for a tenant within its allowance or on free', async () => {
    const within = await paidTenant('scale');
    await countSearches(within.tenant, 50_001);
    const free = randomUUID();
    await countSearches(free, 5_000);
    await new Promise((r) => setTimeout(r, 4 * METER_INTERVAL_MS));
    expect(reportedFor(within.customer)).toEqual([]);
    expect(stripe.meterEvents.filter((e) => e.identifier.includes(free))).toEqual([]);
  });

  it('sends a report the provider failed again, without counting it twice', async () => {
    const { tenant, customer } = await paidTenant('pro');
    // More failures than the SDK's own retries: the run gives up and the next one sends the same window again.
    stripe.failNext('/v1/billing/meter_events', 3);
    await countSearches(tenant, 50_000 + 40);
    await eventually(async () => expect(total(customer)).toBe(40), 15_000);
    await new Promise((r) => setTimeout(r, 3 * METER_INTERVAL_MS));
    expect(reportedFor(customer)).toHaveLength(1);
  });

  it('reports nothing twice across a restart', async () => {
    const { tenant, customer } = await paidTenant('pro');
    await countSearches(tenant, 50_000 + 75);
    await eventually(async () => expect(total(customer)).toBe(75));
    await svc.stop();
    svc = await startTestService(billingModule, { database: db.database, config: cloudConfig() });
    await new Promise((r) => setTimeout(r, 5 * METER_INTERVAL_MS));
    expect(reportedFor(customer)).toHaveLength(1);
    expect(total(customer)).toBe(75);
    await countSearches(tenant, 5);
    await eventually(async () => expect(total(customer)).toBe(80));
    expect(reportedFor(customer)).toHaveLength(2);
  });
  it('sends a window decided before a stop once after the restart, when the provider was down at the stop', async () => {
    const { tenant, customer } = await paidTenant('pro');
    const path = '/v1/billing/meter_events';
    stripe.failNext(path, 1_000);
    const before = stripe.callsTo(path).length;
    await countSearches(tenant, 50_000 + 64);
    // The window was decided (the provider was asked, and failed) before the service stopped.
    await eventually(async () => expect(stripe.callsTo(path).filter((c) => c.body.identifier?.toString().includes(tenant)).length).toBeGreaterThan(0));
    expect(stripe.callsTo(path).length).toBeGreaterThan(before);
    await svc.stop();
    stripe.failNext(path, 0);
    svc = await startTestService(billingModule, { database: db.database, config: cloudConfig() });
    await eventually(async () => expect(total(customer)).toBe(64), 15_000);
    await new Promise((r) => setTimeout(r, 3 * METER_INTERVAL_MS));
    expect(reportedFor(customer)).toHaveLength(1);
  });
});

describe('self-hosted', () => {
  let selfHosted: TestService;
  beforeAll(async () => {
    // Given the provider's settings all the same: self-hosted must still never call it.
    selfHosted = await startTestService(billingModule, { config: { ...cloudConfig(), DEPLOYMENT_MODE: 'self_hosted', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } });
  });
  afterAll(() => selfHosted.stop());

  it('answers 404 on every billing path and never calls the payment provider', async () => {
    const calls = stripe.calls.length;
    const tenant = randomUUID();
    const user = selfHosted.as(tenant, ['admin'], `user:${randomUUID()}`);
    const body = { plan: 'pro', success_url: 'https://portal.example/a', cancel_url: 'https://portal.example/b' };
    const answers = [
      await request(selfHosted.instance.app).post('/portal/billing/checkout').set(user).send(body),
      await request(selfHosted.instance.app).post('/portal/billing/portal').set(user).send({ return_url: 'https://portal.example' }),
      await request(selfHosted.instance.app).get('/portal/billing/status').set(user),
      await request(selfHosted.instance.app).get('/portal/billing/anything/else').set(user),
      await request(selfHosted.instance.app).get('/billing/payment/webhook').set(user),
    ];
    const { body: signedBody, signature } = signed(checkoutCompleted(tenant));
    answers.push(
      await request(selfHosted.instance.app)
        .post('/billing/payment/webhook')
        .set(selfHosted.as(ANONYMOUS, [], 'anonymous'))
        .set('content-type', 'application/json')
        .set('stripe-signature', signature)
        .send(signedBody),
    );
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404]);
    await new Promise((r) => setTimeout(r, 3 * METER_INTERVAL_MS));
    expect(stripe.calls.length).toBe(calls);
  });
});
