import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, type BillingEvent, type Plan } from '@trove/contracts';
import { IDENTITY_HEADER, verifyIdentity, type Identity } from '@trove/platform';
import type { TestService } from '@trove/testing';
import { bearer, devTenant, eventually, startRecordingUpstream, startStack, type Stack } from './support';

let stack: Stack;
let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  // Keys stay cached far longer than any test: a plan change seen must reach a cached key without waiting it out.
  stack = await startStack({ RECORDS_URL: upstream.url, INGESTION_URL: upstream.url, SEARCH_URL: upstream.url, OPEN_URL: upstream.url, KEY_CACHE_TTL_MS: '600000' });
});
afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
});

/** The identity the gateway forwarded for one request to the records service. */
async function forwarded(gw: TestService, credential: Record<string, string>, path = '/api/v1/records'): Promise<Identity> {
  const before = upstream.received.length;
  const res = await request(gw.instance.app).get(path).set(credential);
  expect(res.status).toBe(200);
  const got = upstream.received.slice(before).find((r) => r.url.split('?')[0] === path.replace('/api/v1', ''));
  return verifyIdentity(got!.headers[IDENTITY_HEADER] as string, gw.ctx.config.INTERNAL_TOKEN_SECRET)!;
}

async function adminKey(tenant: string): Promise<string> {
  const res = await request(stack.gateway.instance.app).post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'admin', scopes: ['admin'] });
  expect(res.status).toBe(201);
  return res.body.key;
}

/** A new portal account: its sign-in token (as a credential) and its tenant. */
async function signUp(): Promise<{ token: Record<string, string>; tenant: string }> {
  const signup = await request(stack.gateway.instance.app)
    .post('/api/v1/portal/auth/signup')
    .send({ email: `p-${randomUUID()}@example.com`, password: 'a long enough password' });
  expect(signup.status).toBe(201);
  return { token: bearer(signup.body.token), tenant: signup.body.account.tenant_id as string };
}

async function announce(tenant: string, plan: Plan, changedAt = new Date()): Promise<void> {
  const payload: BillingEvent = { kind: 'plan_changed', tenant_id: tenant, plan, changed_at: changedAt.toISOString() };
  await stack.auth.bus.publish([{ topic: TOPICS.billingEvents, key: tenant, payload }]);
}

const planBecomes = (gw: TestService, credential: Record<string, string>, plan: Plan, path?: string) =>
  eventually(async () => (await forwarded(gw, credential, path)).plan === plan);

describe('plan changes from billing.events at the gateway', () => {
  it("applies a plan change at once to a key this gateway and another replica hold cached, and to no other tenant's", async () => {
    const replica = await stack.startGateway({ KEY_CACHE_TTL_MS: '600000' });
    const [tenant, other] = [randomUUID(), randomUUID()];
    const [key, otherKey] = [bearer(await adminKey(tenant)), bearer(await adminKey(other))];
    for (const gw of [stack.gateway, replica]) {
      expect((await forwarded(gw, key)).plan).toBe('enterprise');
      expect((await forwarded(gw, otherKey)).plan).toBe('enterprise');
    }

    await announce(tenant, 'pro');
    await planBecomes(stack.gateway, key, 'pro');
    await planBecomes(replica, key, 'pro');
    for (const gw of [stack.gateway, replica]) expect(await forwarded(gw, otherKey)).toMatchObject({ tenantId: other, plan: 'enterprise' });
  });

  it("applies it over a portal token's plan claim, which names the plan of its sign-in", async () => {
    const { token, tenant } = await signUp();
    expect(await forwarded(stack.gateway, token, '/api/v1/portal/collections')).toMatchObject({ tenantId: tenant, plan: 'enterprise' });

    await announce(tenant, 'scale');
    await planBecomes(stack.gateway, token, 'scale', '/api/v1/portal/collections');
  });

  it('applies a change made before it started to a portal token signed before the change (a gateway restarted)', async () => {
    const { token, tenant } = await signUp();
    await announce(tenant, 'scale');
    await planBecomes(stack.gateway, token, 'scale', '/api/v1/portal/collections');

    const restarted = await stack.startGateway();
    await planBecomes(restarted, token, 'scale', '/api/v1/portal/collections');
  });

  it('keeps the latest change when an older one arrives after it', async () => {
    const [tenant, marker] = [randomUUID(), randomUUID()];
    const [key, markerKey] = [bearer(await adminKey(tenant)), bearer(await adminKey(marker))];
    const later = new Date();
    await announce(tenant, 'free', later);
    await planBecomes(stack.gateway, key, 'free');
    await announce(tenant, 'pro', new Date(later.getTime() - 60_000));
    // Events are handled in the order published: once the marker's change shows, the older one has been handled.
    await announce(marker, 'scale');
    await planBecomes(stack.gateway, markerKey, 'scale');
    expect((await forwarded(stack.gateway, key)).plan).toBe('free');
  });
});
