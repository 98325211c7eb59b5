import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, authEvent, type AuthEvent } from '@trove/contracts';
import type { Subscription } from '@trove/bus';
import { startTestService, type TestService } from '@trove/testing';
import { authModule, createTenantWithAdminKey } from '../src';

const GATEWAY = (svc: TestService) => svc.as('00000000-0000-0000-0000-000000000000', [], 'service:gateway', 'gateway');

let svc: TestService;
let events: AuthEvent[];
let subscription: Subscription;

beforeAll(async () => {
  svc = await startTestService(authModule);
  events = [];
  subscription = await svc.bus.subscribe({
    group: `auth-test-${randomUUID()}`,
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

async function eventually<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function createKey(tenant: string, body: Record<string, unknown> = { name: 'k', scopes: ['search'] }) {
  const res = await request(svc.instance.app).post('/auth/keys').set(svc.as(tenant, ['admin'], `dev:${tenant}`)).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; name: string; scopes: string[]; expires_at: string | null };
}

function verify(key: unknown) {
  return request(svc.instance.app).post('/internal/keys/verify').set(GATEWAY(svc)).send({ key });
}

describe('key creation', () => {
  it('creates the tenant on its first key and returns the key value with a notice', async () => {
    const tenant = randomUUID();
    const res = await request(svc.instance.app)
      .post('/auth/keys')
      .set(svc.as(tenant, ['admin'], `dev:${tenant}`))
      .send({ name: 'first', scopes: ['search', 'upload'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'first',
      key: expect.stringMatching(/^sk_live_[0-9a-f]{64}$/),
      scopes: ['search', 'upload'],
      expires_at: null,
      message: expect.any(String),
    });
    const verified = await verify(res.body.key);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ tenant_id: tenant, key_id: res.body.id, scopes: ['search', 'upload'], plan: 'enterprise', expires_at: null });
  });

  it('stores the key only as a hash', async () => {
    const tenant = randomUUID();
    const { key } = await createKey(tenant);
    const rows = await svc.database.db.selectFrom('auth.api_keys').selectAll().where('tenant_id', '=', tenant).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(key.slice('sk_live_'.length));
  });

  it('refuses key management without the admin scope', async () => {
    const tenant = randomUUID();
    const res = await request(svc.instance.app).post('/auth/keys').set(svc.as(tenant, ['search'])).send({ name: 'x', scopes: ['search'] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('refuses requests that did not come through the gateway', async () => {
    const res = await request(svc.instance.app).get('/auth/keys');
    expect(res.status).toBe(401);
  });

  it('accepts a datetime without an offset as UTC', async () => {
    const tenant = randomUUID();
    const res = await request(svc.instance.app)
      .post('/auth/keys')
      .set(svc.as(tenant))
      .send({ name: 'x', scopes: ['search'], expires_at: '2099-01-01T00:00:00' });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe('2099-01-01T00:00:00.000Z');
  });

  it('rejects repeated scopes with 422', async () => {
    const res = await request(svc.instance.app).post('/auth/keys').set(svc.as(randomUUID())).send({ name: 'x', scopes: ['search', 'search'] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'scopes']);
  });
});

describe('key verification', () => {
  it('answers 401 for an unknown key', async () => {
    const res = await verify(`sk_live_${'0'.repeat(64)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid API key' });
  });

  it('answers 401 without echoing a malformed body', async () => {
    const res = await verify({ not: 'a string' });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain('not');
  });

  it('is refused to any principal but the gateway', async () => {
    const { key } = await createKey(randomUUID());
    const tenant = randomUUID();
    const res = await request(svc.instance.app).post('/internal/keys/verify').set(svc.as(tenant, ['admin'], `key:${randomUUID()}`, 'ingestion')).send({ key });
    expect(res.status).toBe(403);
  });

  it('is not there for a request forwarded from outside, whatever its principal', async () => {
    const { key } = await createKey(randomUUID());
    const res = await request(svc.instance.app).post('/internal/keys/verify').set(svc.as('00000000-0000-0000-0000-000000000000', [], 'service:gateway')).send({ key });
    expect(res.status).toBe(404);
  });

  it('records when a key was last used', async () => {
    const tenant = randomUUID();
    const { id, key } = await createKey(tenant);
    const before = await request(svc.instance.app).get('/auth/keys').set(svc.as(tenant));
    expect(before.body.find((k: { id: string }) => k.id === id).last_used_at).toBeNull();
    expect((await verify(key)).status).toBe(200);
    const after = await request(svc.instance.app).get('/auth/keys').set(svc.as(tenant));
    expect(after.body.find((k: { id: string }) => k.id === id).last_used_at).toEqual(expect.any(String));
  });

  it('rejects a key once it has expired', async () => {
    const tenant = randomUUID();
    const { key } = await createKey(tenant, { name: 'short', scopes: ['search'], expires_at: new Date(Date.now() + 1000).toISOString() });
    expect((await verify(key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await verify(key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'API key has expired' });
  });
});

describe('rotation and revocation', () => {
  it('rotates a key: the old value stops working and auth.events announces it', async () => {
    const tenant = randomUUID();
    const created = await createKey(tenant, { name: 'rot', scopes: ['records'], expires_at: '2099-01-01T00:00:00Z' });
    const res = await request(svc.instance.app).post(`/auth/keys/${created.id}/rotate`).set(svc.as(tenant));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: 'rot', scopes: ['records'], expires_at: '2099-01-01T00:00:00.000Z', message: expect.any(String) });
    expect(res.body.key).toMatch(/^sk_live_[0-9a-f]{64}$/);
    expect(res.body.key).not.toBe(created.key);
    expect((await verify(created.key)).status).toBe(401);
    expect((await verify(res.body.key)).status).toBe(200);
    await eventually(() => events.find((e) => e.key_id === created.id && e.kind === 'key_rotated'));
  });

  it('revokes a key: verification fails at once, auth.events announces it, a second revoke is 404', async () => {
    const tenant = randomUUID();
    const created = await createKey(tenant);
    expect((await request(svc.instance.app).delete(`/auth/keys/${created.id}`).set(svc.as(tenant))).status).toBe(204);
    expect((await verify(created.key)).status).toBe(401);
    await eventually(() => events.find((e) => e.key_id === created.id && e.kind === 'key_revoked'));
    expect((await request(svc.instance.app).delete(`/auth/keys/${created.id}`).set(svc.as(tenant))).status).toBe(404);
    expect((await request(svc.instance.app).post(`/auth/keys/${created.id}/rotate`).set(svc.as(tenant))).status).toBe(404);
  });

  it("answers 404 for another tenant's key and leaves it working", async () => {
    const owner = randomUUID();
    const created = await createKey(owner);
    const other = randomUUID();
    expect((await request(svc.instance.app).delete(`/auth/keys/${created.id}`).set(svc.as(other))).status).toBe(404);
    expect((await request(svc.instance.app).post(`/auth/keys/${created.id}/rotate`).set(svc.as(other))).status).toBe(404);
    expect((await verify(created.key)).status).toBe(200);
  });
});

describe('production bootstrap', () => {
  it('creates a tenant with a working admin key', async () => {
    const result = await createTenantWithAdminKey(svc.database, svc.ctx.config, { name: 'Acme' });
    expect(result.key).toMatch(/^sk_live_[0-9a-f]{64}$/);
    const verified = await verify(result.key);
    expect(verified.body).toMatchObject({ tenant_id: result.tenant_id, key_id: result.key_id, scopes: ['admin'], plan: 'enterprise' });
  });

  it('issues another admin key for an existing tenant id', async () => {
    const first = await createTenantWithAdminKey(svc.database, svc.ctx.config, { name: 'Acme' });
    const second = await createTenantWithAdminKey(svc.database, svc.ctx.config, { name: 'Ignored', tenantId: first.tenant_id });
    expect(second.tenant_id).toBe(first.tenant_id);
    expect(second.key_id).not.toBe(first.key_id);
    expect((await verify(first.key)).status).toBe(200);
    expect((await verify(second.key)).status).toBe(200);
  });

  it('refuses a tenant id that is not a UUID', async () => {
    await expect(createTenantWithAdminKey(svc.database, svc.ctx.config, { name: 'x', tenantId: 'nope' })).rejects.toThrow('UUID');
  });
});
