import { randomUUID } from 'node:crypto';
import { eventually } from '@trove/testing';
import { PRICE_PRO, PRICE_SCALE, WEBHOOK_SECRET, checkoutCompleted, signed, subscriptionEvent } from '../services/billing/test/payment-events';
import { startStripeStandIn, type StripeStandIn } from '../services/billing/test/stripe-stand-in';
import { portalAuth, signUp } from './support/portal';
import { useTrove, type Api } from './support/system';

jest.setTimeout(120_000);

let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn();
});
afterAll(async () => stripe?.close());

const providerSettings = () => ({
  STRIPE_SECRET_KEY: 'sk_test_trove_e2e',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_PRO: PRICE_PRO,
  STRIPE_PRICE_SCALE: PRICE_SCALE,
  STRIPE_API_URL: stripe.url,
});

/** Posts a provider event to the public webhook path, signed as the provider signs it (or as `opts` spoils it). */
function deliver(api: Api, event: unknown, opts: { secret?: string; timestamp?: number } = {}) {
  const { body, signature } = signed(event, opts);
  return api('POST', '/api/v1/billing/payment/webhook', { raw: body, headers: { 'stripe-signature': signature } });
}

describe('billing through the gateway in cloud mode', () => {
  // The stand-in's URL is known once the file's beforeAll has started it.
  const { api } = useTrove(() => ({ env: { DEPLOYMENT_MODE: 'cloud', ...providerSettings() } }));

  it('a new account is on free; checkout, then the signed webhook, put it on pro as status shows', async () => {
    const { token, account } = await signUp(api);
    const portal = portalAuth(token);
    const fresh = await api('GET', '/api/v1/portal/billing/status', { headers: portal });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ plan: 'free', has_subscription: false, billing_period_end: null, is_cloud: true });

    const checkout = await api('POST', '/api/v1/portal/billing/checkout', {
      headers: portal,
      body: { plan: 'pro', success_url: 'https://portal.example/done', cancel_url: 'https://portal.example/billing' },
    });
    expect(checkout.status).toBe(200);
    expect(checkout.body.checkout_url).toMatch(/^https:\/\//);
    expect(stripe.callsTo('/v1/checkout/sessions').at(-1)!.body).toMatchObject({ client_reference_id: account.tenant_id, metadata: { tenant_id: account.tenant_id } });

    const customer = `cus_${randomUUID().slice(0, 8)}`;
    const completed = checkoutCompleted(account.tenant_id, { plan: 'pro', customer, subscription: 'sub_e2e_1' });
    // A forged or stale delivery is refused and changes nothing.
    expect((await deliver(api, completed, { secret: 'whsec_forged' })).status).toBe(400);
    expect((await deliver(api, completed, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(400);
    expect((await api('GET', '/api/v1/portal/billing/status', { headers: portal })).body.plan).toBe('free');

    expect((await deliver(api, completed)).status).toBe(200);
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 24 * 3600;
    const updated = subscriptionEvent('customer.subscription.updated', account.tenant_id, { id: 'sub_e2e_1', customer, price: PRICE_PRO, periodEnd });
    expect((await deliver(api, updated)).status).toBe(200);
    // Delivered twice, as the provider may: the same answer, nothing changes.
    expect((await deliver(api, updated)).status).toBe(200);
    const paid = await api('GET', '/api/v1/portal/billing/status', { headers: portal });
    expect(paid.body).toEqual({ plan: 'pro', has_subscription: true, billing_period_end: new Date(periodEnd * 1000).toISOString(), is_cloud: true });

    const manage = await api('POST', '/api/v1/portal/billing/portal', { headers: portal, body: { return_url: 'https://portal.example/billing' } });
    expect(manage.status).toBe(200);
    expect(stripe.callsTo('/v1/billing_portal/sessions').at(-1)!.body.customer).toBe(customer);
  });

  it("the gateway applies a plan the webhook set to the tenant's keys at once (billing.events)", async () => {
    const { token, account } = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'plan', scopes: ['admin'] } });
    expect(key.status).toBe(201);
    const withKey = { authorization: `Bearer ${key.body.key}` };
    const before = await api('GET', '/api/v1/usage', { headers: withKey });
    expect(before.status).toBe(200);
    expect(before.headers.get('x-ratelimit-limit')).toBe('60');

    const customer = `cus_${randomUUID().slice(0, 8)}`;
    expect((await deliver(api, checkoutCompleted(account.tenant_id, { plan: 'scale', customer, subscription: 'sub_e2e_2' }))).status).toBe(200);
    await eventually(async () => {
      const after = await api('GET', '/api/v1/usage', { headers: withKey });
      expect(after.headers.get('x-ratelimit-limit')).toBe('2000');
    });
  });

  it('portal billing paths refuse no token and an API key', async () => {
    expect((await api('GET', '/api/v1/portal/billing/status')).status).toBe(401);
    const { token } = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'billing', scopes: ['search'] } });
    expect(key.status).toBe(201);
    expect((await api('GET', '/api/v1/portal/billing/status', { headers: { authorization: `Bearer ${key.body.key}` } })).status).toBe(401);
  });
});

describe('billing through the gateway when self-hosted', () => {
  const { api } = useTrove(() => ({ env: { DEPLOYMENT_MODE: 'self_hosted', ...providerSettings() } }));

  it('answers 404 on every billing path and never calls the payment provider', async () => {
    const calls = stripe.calls.length;
    const { token, account } = await signUp(api);
    const portal = portalAuth(token);
    const answers = [
      await api('POST', '/api/v1/portal/billing/checkout', { headers: portal, body: { plan: 'pro', success_url: 'https://a.example', cancel_url: 'https://b.example' } }),
      await api('POST', '/api/v1/portal/billing/portal', { headers: portal, body: { return_url: 'https://a.example' } }),
      await api('GET', '/api/v1/portal/billing/status', { headers: portal }),
      await deliver(api, checkoutCompleted(account.tenant_id)),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    expect(stripe.calls.length).toBe(calls);
  });
});
