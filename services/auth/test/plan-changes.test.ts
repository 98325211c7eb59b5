import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, type BillingEvent, type Plan } from '@trove/contracts';
import { eventually, startTestService, type TestService } from '@trove/testing';
import { authModule } from '../src';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService(authModule);
});
afterAll(async () => {
  await svc.stop();
});

const GATEWAY = () => svc.as('00000000-0000-0000-0000-000000000000', [], 'service:gateway', 'gateway');
const verify = (key: string) => request(svc.instance.app).post('/internal/keys/verify').set(GATEWAY()).send({ key });

async function newKey(tenant: string): Promise<string> {
  const res = await request(svc.instance.app).post('/auth/keys').set(svc.as(tenant, ['admin'], `dev:${tenant}`)).send({ name: 'k', scopes: ['search'] });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

async function announce(tenant: string, plan: Plan, changedAt: Date): Promise<void> {
  const payload: BillingEvent = { kind: 'plan_changed', tenant_id: tenant, plan, changed_at: changedAt.toISOString() };
  await svc.bus.publish([{ topic: TOPICS.billingEvents, key: tenant, payload }]);
}

describe('plan changes from billing.events', () => {
  it("answers the tenant's new plan in key verification once billing announced it", async () => {
    const tenant = randomUUID();
    const key = await newKey(tenant);
    expect((await verify(key)).body.plan).toBe('enterprise');

    await announce(tenant, 'pro', new Date());
    await eventually(async () => expect((await verify(key)).body.plan).toBe('pro'));
    // Every key of the tenant, old or new, answers the plan.
    expect((await verify(await newKey(tenant))).body.plan).toBe('pro');
  });

  it('keeps the latest change when an older one arrives after it, and a redelivery changes nothing', async () => {
    const tenant = randomUUID();
    const marker = randomUUID();
    const [key, markerKey] = [await newKey(tenant), await newKey(marker)];
    const later = new Date();
    await announce(tenant, 'scale', later);
    await announce(tenant, 'free', new Date(later.getTime() - 60_000));
    await announce(tenant, 'scale', later);
    // Events are handled in the order published: once the marker's change shows, the tenant's have been handled.
    await announce(marker, 'free', new Date());
    await eventually(async () => expect((await verify(markerKey)).body.plan).toBe('free'));
    expect((await verify(key)).body.plan).toBe('scale');
  });

  it("never changes another tenant's plan, and passes over a change for a tenant auth does not know", async () => {
    const tenant = randomUUID();
    const other = randomUUID();
    const [key, otherKey] = [await newKey(tenant), await newKey(other)];
    await announce(randomUUID(), 'free', new Date());
    await svc.bus.publish([{ topic: TOPICS.billingEvents, key: tenant, payload: { kind: 'plan_changed', tenant_id: tenant, plan: 'platinum' } }]);
    await announce(other, 'pro', new Date());
    await eventually(async () => expect((await verify(otherKey)).body.plan).toBe('pro'));
    expect((await verify(key)).body.plan).toBe('enterprise');
  });
});
