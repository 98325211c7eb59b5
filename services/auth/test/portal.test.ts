import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, authEvent, type AuthEvent } from '@trove/contracts';
import type { Subscription } from '@trove/bus';
import { PortalTokens } from '@trove/platform';
import { startTestService, type TestService } from '@trove/testing';
import { authModule } from '../src';

const ANONYMOUS = '00000000-0000-0000-0000-000000000000';
const GATEWAY = (svc: TestService) => svc.as(ANONYMOUS, [], 'service:gateway', 'gateway');

let svc: TestService;
let events: AuthEvent[];
let subscription: Subscription;

beforeAll(async () => {
  svc = await startTestService(authModule, { config: { PORTAL_LOGIN_LIMIT_PER_EMAIL: '3', PORTAL_LOGIN_LIMIT_PER_ADDRESS: '5' } });
  events = [];
  subscription = await svc.bus.subscribe({
    group: `auth-portal-test-${randomUUID()}`,
    topics: [TOPICS.authEvents],
    ephemeral: true,
    handler: async (batch) => {
      for (const e of batch) events.push(authEvent.parse(e.payload));
    },
  });
});

afterAll(async () => {
  await subscription.stop();
  await svc.stop();
});

/** What the gateway sends for a request without a credential (signup, login). */
const anonymous = () => svc.as(ANONYMOUS, [], 'anonymous');
/** Each request from its own client address, unless a test says otherwise, so the per-address limit stays out of the way. */
const fromAddress = (address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`) => ({ 'X-Forwarded-For': address });

const newEmail = () => `Person.${randomUUID()}@Example.com`;
const PASSWORD = 'a long enough password';

function signup(body: Record<string, unknown>) {
  return request(svc.instance.app).post('/portal/auth/signup').set(anonymous()).send(body);
}

function login(body: Record<string, unknown>, address?: string) {
  return request(svc.instance.app).post('/portal/auth/login').set(anonymous()).set(fromAddress(address)).send(body);
}

async function signedUp(extra: Record<string, unknown> = {}) {
  const res = await signup({ email: newEmail(), password: PASSWORD, ...extra });
  expect(res.status).toBe(201);
  const account = res.body.account as { user_id: string; tenant_id: string; email: string };
  return { ...res.body, account, headers: svc.as(account.tenant_id, ['admin'], `user:${account.user_id}`) };
}

const tokens = () => new PortalTokens(svc.ctx.config);

describe('signup', () => {
  it('creates a tenant and its first user and answers a token for them', async () => {
    const email = newEmail();
    const res = await signup({ email, password: PASSWORD, display_name: 'Ada', company: 'Engines Ltd' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      account: {
        user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email,
        tenant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        display_name: 'Ada',
        company: 'Engines Ltd',
        created_at: expect.any(String),
      },
    });
    expect(tokens().verify(res.body.token)).toEqual({
      userId: res.body.account.user_id,
      tenantId: res.body.account.tenant_id,
      plan: 'enterprise',
    });
  });

  it('gives every signup a tenant of its own, without display name or company when none are given', async () => {
    const a = await signedUp();
    const b = await signedUp();

    expect(a.account.tenant_id).not.toBe(b.account.tenant_id);
    expect(a.account).toEqual(expect.objectContaining({ display_name: null, company: null }));
  });

  it('answers 409 to a second signup with the same email in any case, and keeps the first password', async () => {
    const email = newEmail();
    expect((await signup({ email, password: PASSWORD })).status).toBe(201);

    const again = await signup({ email: email.toUpperCase(), password: 'another long password' });
    expect(again.status).toBe(409);
    expect(typeof again.body.detail).toBe('string');
    expect((await login({ email: email.toLowerCase(), password: PASSWORD })).status).toBe(200);
  });

  it('answers one 201 and one 409 to two concurrent signups with the same email', async () => {
    const email = newEmail();
    const answers = await Promise.all([signup({ email, password: PASSWORD }), signup({ email: email.toLowerCase(), password: PASSWORD })]);

    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it.each([
    ['a short password', { email: 'x@example.com', password: 'short' }, ['body', 'password']],
    ['a missing password', { email: 'x@example.com' }, ['body', 'password']],
    ['an email that is not one', { email: 'not-an-email', password: PASSWORD }, ['body', 'email']],
    ['a missing email', { password: PASSWORD }, ['body', 'email']],
    ['a display name that is not a string', { email: 'x@example.com', password: PASSWORD, display_name: 7 }, ['body', 'display_name']],
  ])('refuses %s with 422 in the documented shape', async (_what, body, loc) => {
    const res = await signup(body);

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String), ctx: expect.any(Object) })]),
    );
  });

  it('refuses a body that is not JSON with 422', async () => {
    const res = await request(svc.instance.app).post('/portal/auth/signup').set(anonymous()).set('content-type', 'application/json').send('{');
    expect(res.status).toBe(422);
  });
});

describe('login', () => {
  it('answers a token and the account for the right password, the email in any case', async () => {
    const { account } = await signedUp({ display_name: 'Grace' });
    const res = await login({ email: account.email.toUpperCase(), password: PASSWORD });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: 3600, account });
    expect(tokens().verify(res.body.token)).toEqual(expect.objectContaining({ userId: account.user_id, tenantId: account.tenant_id }));
  });

  it('gives the same 401 for a wrong password and an unknown email, in about the same time', async () => {
    const { account } = await signedUp();
    const timed = async (body: Record<string, unknown>) => {
      const started = Date.now();
      const res = await login(body);
      return { res, ms: Date.now() - started };
    };
    const wrong = await timed({ email: account.email, password: 'not the password' });
    const unknown = await timed({ email: newEmail(), password: 'not the password' });

    expect(wrong.res.status).toBe(401);
    expect(unknown.res.status).toBe(401);
    expect(unknown.res.body).toEqual(wrong.res.body);
    // Both hash once; an unknown email that skipped hashing would answer in a small fraction of the time.
    expect(unknown.ms).toBeGreaterThan(wrong.ms / 4);
    expect(wrong.ms).toBeGreaterThan(unknown.ms / 4);
  });

  it('refuses a missing password or email with 422', async () => {
    expect((await login({ email: 'x@example.com' })).status).toBe(422);
    expect((await login({ password: PASSWORD })).status).toBe(422);
  });

  it('limits attempts per email: 429 with Retry-After once the allowance is spent, even with the right password', async () => {
    const { account } = await signedUp();
    for (let i = 0; i < 3; i++) expect((await login({ email: account.email, password: 'wrong password!' })).status).toBe(401);

    const limited = await login({ email: account.email.toUpperCase(), password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect(limited.body.detail).toMatch(/Try again in \d+ seconds/);
    // Another person is not affected.
    const other = await signedUp();
    expect((await login({ email: other.account.email, password: PASSWORD })).status).toBe(200);
  });

  it('limits attempts per client address across emails', async () => {
    const address = '198.51.100.7';
    for (let i = 0; i < 5; i++) expect((await login({ email: newEmail(), password: 'whatever it is' }, address)).status).toBe(401);

    const limited = await login({ email: newEmail(), password: 'whatever it is' }, address);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await login({ email: newEmail(), password: 'whatever it is' }, '198.51.100.8')).status).toBe(401);
  });
});

describe('account', () => {
  it('reads and updates the signed-in person, keeping what the body leaves out', async () => {
    const { account, headers } = await signedUp({ display_name: 'Ada', company: 'Engines' });

    const got = await request(svc.instance.app).get('/portal/account').set(headers);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(account);

    const patched = await request(svc.instance.app).patch('/portal/account').set(headers).send({ company: 'Analytical Engines' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...account, company: 'Analytical Engines' });
    expect((await request(svc.instance.app).get('/portal/account').set(headers)).body.company).toBe('Analytical Engines');

    const cleared = await request(svc.instance.app).patch('/portal/account').set(headers).send({ display_name: '' });
    expect(cleared.body).toEqual({ ...account, company: 'Analytical Engines', display_name: null });
  });

  it.each([
    ['an unknown field', { email: 'new@example.com' }, ['body', 'email']],
    ['a company that is not a string', { company: 5 }, ['body', 'company']],
  ])('refuses %s with 422', async (_what, body, loc) => {
    const { headers } = await signedUp();
    const res = await request(svc.instance.app).patch('/portal/account').set(headers).send(body);

    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('answers only a portal user: an API key identity is 401', async () => {
    const { account } = await signedUp();
    const asKey = svc.as(account.tenant_id, ['admin'], `key:${randomUUID()}`);

    expect((await request(svc.instance.app).get('/portal/account').set(asKey)).status).toBe(401);
    expect((await request(svc.instance.app).get('/portal/keys').set(asKey)).status).toBe(401);
  });
});

describe('portal keys', () => {
  it('creates, lists, rotates and deletes keys; the values verify until rotated or revoked', async () => {
    const { headers } = await signedUp();
    const created = await request(svc.instance.app).post('/portal/keys').set(headers).send({ name: 'ci', scopes: ['search', 'records'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'ci',
      key: expect.stringMatching(/^sk_live_[0-9a-f]{64}$/),
      scopes: ['search', 'records'],
      created_at: expect.any(String),
      message: expect.any(String),
    });
    const verify = (key: string) => request(svc.instance.app).post('/internal/keys/verify').set(GATEWAY(svc)).send({ key });
    expect((await verify(created.body.key)).status).toBe(200);

    const listed = await request(svc.instance.app).get('/portal/keys').set(headers);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      keys: [{ id: created.body.id, name: 'ci', scopes: ['search', 'records'], created_at: created.body.created_at, last_used_at: expect.any(String), expires_at: null }],
    });

    const rotated = await request(svc.instance.app).post(`/portal/keys/${created.body.id}/rotate`).set(headers);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ ...created.body, key: expect.stringMatching(/^sk_live_/), message: expect.any(String) });
    expect(rotated.body.key).not.toBe(created.body.key);
    expect((await verify(created.body.key)).status).toBe(401);
    expect((await verify(rotated.body.key)).status).toBe(200);

    const deleted = await request(svc.instance.app).delete(`/portal/keys/${created.body.id}`).set(headers);
    expect(deleted.status).toBe(204);
    expect((await verify(rotated.body.key)).status).toBe(401);
    expect((await request(svc.instance.app).get('/portal/keys').set(headers)).body).toEqual({ keys: [] });

    // Gateways learn of both changes through auth.events, as for the key routes.
    const kinds = () => events.filter((e) => e.key_id === created.body.id).map((e) => e.kind);
    const until = Date.now() + 5_000;
    while (kinds().length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    expect(kinds()).toEqual(['key_rotated', 'key_revoked']);
  });

  it("answers 404 for another tenant's key, exactly as for a missing one, and leaves it working", async () => {
    const owner = await signedUp();
    const stranger = await signedUp();
    const key = await request(svc.instance.app).post('/portal/keys').set(owner.headers).send({ name: 'mine', scopes: ['admin'] });

    for (const id of [key.body.id, randomUUID()]) {
      const rotate = await request(svc.instance.app).post(`/portal/keys/${id}/rotate`).set(stranger.headers);
      const del = await request(svc.instance.app).delete(`/portal/keys/${id}`).set(stranger.headers);
      expect([rotate.status, rotate.body]).toEqual([404, { detail: 'API key not found' }]);
      expect([del.status, del.body]).toEqual([404, { detail: 'API key not found' }]);
    }
    expect((await request(svc.instance.app).get('/portal/keys').set(stranger.headers)).body).toEqual({ keys: [] });
    expect((await request(svc.instance.app).get('/portal/keys').set(owner.headers)).body.keys).toHaveLength(1);
  });

  it.each([
    ['no name', { scopes: ['search'] }, ['body', 'name']],
    ['an unknown scope', { name: 'k', scopes: ['everything'] }, ['body', 'scopes', '0']],
    ['no scopes', { name: 'k', scopes: [] }, ['body', 'scopes']],
  ])('refuses a key with %s with 422', async (_what, body, loc) => {
    const { headers } = await signedUp();
    const res = await request(svc.instance.app).post('/portal/keys').set(headers).send(body);

    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  it('refuses a key id that is not a UUID with 422', async () => {
    const { headers } = await signedUp();
    const res = await request(svc.instance.app).delete('/portal/keys/not-a-uuid').set(headers);

    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'key_id']);
  });
});
