import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { bearer, devTenant, eventually, startStack, type Stack } from './support';

const KEY_FORMAT = /^sk_live_[0-9a-f]{64}$/;

let stack: Stack;
let gateway: () => ReturnType<typeof request>;

beforeAll(async () => {
  stack = await startStack();
  gateway = () => request(stack.gateway.instance.app);
});
afterAll(async () => stack?.stop());

async function bootstrap(tenant = randomUUID()): Promise<{ tenant: string; adminKey: string; adminId: string }> {
  const res = await gateway().post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'bootstrap', scopes: ['admin'] });
  expect(res.status).toBe(201);
  return { tenant, adminKey: res.body.key, adminId: res.body.id };
}

async function createKey(adminKey: string, body: Record<string, unknown>) {
  const res = await gateway().post('/api/v1/auth/keys').set(bearer(adminKey)).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; name: string; scopes: string[]; expires_at: string | null };
}

describe('development bootstrap', () => {
  it('creates a first admin key for a new tenant with X-Tenant-Id', async () => {
    const res = await gateway().post('/api/v1/auth/keys').set(devTenant(randomUUID())).send({ name: 'bootstrap', scopes: ['admin'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'bootstrap',
      key: expect.stringMatching(KEY_FORMAT),
      scopes: ['admin'],
      expires_at: null,
      message: expect.any(String),
    });
  });

  it('answers 401 for an X-Tenant-Id that is not a UUID', async () => {
    const res = await gateway().get('/api/v1/auth/keys').set(devTenant('tenant-1'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('authentication', () => {
  it('answers 401 without a key, with a malformed key, and with an unknown key', async () => {
    for (const headers of [{}, bearer('sk_live_short'), { Authorization: 'Basic abc' }, bearer(`sk_live_${'a'.repeat(64)}`)]) {
      const res = await gateway().get('/api/v1/auth/keys').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('answers 403 when the key lacks the scope, and admin implies every scope', async () => {
    const { adminKey } = await bootstrap();
    const search = await createKey(adminKey, { name: 'search-only', scopes: ['search'] });
    const res = await gateway().get('/api/v1/auth/keys').set(bearer(search.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.stringContaining('admin') });
    // An admin key passes the records scope check and reaches the (absent) records service.
    expect((await gateway().get('/api/v1/records').set(bearer(adminKey))).status).toBe(503);
  });

  it('answers 401 on portal routes for a bearer token that is not an API key', async () => {
    const res = await gateway().get('/api/v1/portal/account').set(bearer('eyJhbGciOiJIUzI1NiJ9.e30.abc'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('key lifecycle through the gateway', () => {
  it('lists active keys in creation order without key values or hashes', async () => {
    const { adminKey, tenant } = await bootstrap();
    await createKey(adminKey, { name: 'second', scopes: ['search', 'upload'] });
    const res = await gateway().get('/api/v1/auth/keys').set(bearer(adminKey));
    expect(res.status).toBe(200);
    expect(res.body.map((k: { name: string }) => k.name)).toEqual(['bootstrap', 'second']);
    for (const k of res.body) expect(Object.keys(k).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scopes']);
    expect(res.text).not.toContain('sk_live_');
    expect(res.text).not.toContain(tenant);
  });

  it('rotates a key: the old value is refused at once, the new one works and keeps id, name, scopes and expiry', async () => {
    const { adminKey } = await bootstrap();
    const expiresAt = '2099-06-01T12:00:00.000Z';
    const key = await createKey(adminKey, { name: 'ops', scopes: ['admin', 'search'], expires_at: expiresAt });
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(200);

    const rotated = await gateway().post(`/api/v1/auth/keys/${key.id}/rotate`).set(bearer(adminKey));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: key.id, name: 'ops', scopes: ['admin', 'search'], key: expect.stringMatching(KEY_FORMAT), message: expect.any(String) });
    expect(rotated.body.key).not.toBe(key.key);

    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(401);
    const list = await gateway().get('/api/v1/auth/keys').set(bearer(rotated.body.key));
    expect(list.status).toBe(200);
    expect(list.body.find((k: { id: string }) => k.id === key.id)).toMatchObject({ name: 'ops', scopes: ['admin', 'search'], expires_at: expiresAt });
  });

  it('revokes a key: refused at once although the gateway had it cached', async () => {
    const { adminKey } = await bootstrap();
    const key = await createKey(adminKey, { name: 'doomed', scopes: ['admin'] });
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(200);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(200);

    const del = await gateway().delete(`/api/v1/auth/keys/${key.id}`).set(bearer(adminKey));
    expect(del.status).toBe(204);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(401);

    const list = await gateway().get('/api/v1/auth/keys').set(bearer(adminKey));
    expect(list.body.map((k: { name: string }) => k.name)).toEqual(['bootstrap']);
    expect((await gateway().delete(`/api/v1/auth/keys/${key.id}`).set(bearer(adminKey))).status).toBe(404);
  });

  it('drops a revoked or rotated key from every gateway through auth.events, not only the one that forwarded it', async () => {
    const other = await stack.startGateway();
    const { adminKey } = await bootstrap();
    const revoked = await createKey(adminKey, { name: 'revoked', scopes: ['admin'] });
    const rotated = await createKey(adminKey, { name: 'rotated', scopes: ['admin'] });
    for (const k of [revoked, rotated]) expect((await request(other.instance.app).get('/api/v1/auth/keys').set(bearer(k.key))).status).toBe(200);

    expect((await gateway().delete(`/api/v1/auth/keys/${revoked.id}`).set(bearer(adminKey))).status).toBe(204);
    expect((await gateway().post(`/api/v1/auth/keys/${rotated.id}/rotate`).set(bearer(adminKey))).status).toBe(200);

    // Far sooner than the 30-second cache lifetime: only the event can have dropped them.
    for (const k of [revoked, rotated]) {
      await eventually(async () => (await request(other.instance.app).get('/api/v1/auth/keys').set(bearer(k.key))).status === 401, 3_000);
    }
  });

  it('rejects a key once it has expired, though it was cached', async () => {
    const { adminKey } = await bootstrap();
    const soon = new Date(Date.now() + 1_500).toISOString();
    const key = await createKey(adminKey, { name: 'short', scopes: ['admin'], expires_at: soon });
    expect(key.expires_at).toBe(soon);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(key.key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(soon) - Date.now() + 100));
    const res = await gateway().get('/api/v1/auth/keys').set(bearer(key.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('tenant isolation', () => {
  it("keeps a second tenant from seeing, rotating or revoking the first tenant's keys", async () => {
    const first = await bootstrap();
    const second = await bootstrap();
    const theirs = await gateway().get('/api/v1/auth/keys').set(bearer(second.adminKey));
    expect(theirs.body.map((k: { id: string }) => k.id)).toEqual([second.adminId]);

    expect((await gateway().delete(`/api/v1/auth/keys/${first.adminId}`).set(bearer(second.adminKey))).status).toBe(404);
    expect((await gateway().post(`/api/v1/auth/keys/${first.adminId}/rotate`).set(bearer(second.adminKey))).status).toBe(404);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(first.adminKey))).status).toBe(200);
  });
});

describe('validation', () => {
  let adminKey: string;
  beforeAll(async () => ({ adminKey } = await bootstrap()));

  const post = (body: unknown) => gateway().post('/api/v1/auth/keys').set(bearer(adminKey)).send(body as object);

  function expectIssue(res: request.Response, loc: string[], type: string) {
    expect(res.status).toBe(422);
    for (const d of res.body.detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  }

  it('answers 422 for a missing name', async () => {
    expectIssue(await post({ scopes: ['search'] }), ['body', 'name'], 'missing');
  });

  it('answers 422 for a name over 100 characters', async () => {
    expectIssue(await post({ name: 'n'.repeat(101), scopes: ['search'] }), ['body', 'name'], 'string_too_long');
  });

  it('answers 422 for an unknown scope', async () => {
    expectIssue(await post({ name: 'x', scopes: ['search', 'everything'] }), ['body', 'scopes', '1'], 'enum');
  });

  it('answers 422 for empty or missing scopes', async () => {
    expectIssue(await post({ name: 'x', scopes: [] }), ['body', 'scopes'], 'too_short');
    expectIssue(await post({ name: 'x' }), ['body', 'scopes'], 'missing');
  });

  it('answers 422 for an expires_at in the past or not a datetime', async () => {
    expectIssue(await post({ name: 'x', scopes: ['search'], expires_at: '2020-01-01T00:00:00Z' }), ['body', 'expires_at'], 'datetime_future');
    expectIssue(await post({ name: 'x', scopes: ['search'], expires_at: 'tomorrow' }), ['body', 'expires_at'], 'datetime_parsing');
  });

  it('answers 422 for a key id that is not a UUID', async () => {
    expectIssue(await gateway().delete('/api/v1/auth/keys/not-a-uuid').set(bearer(adminKey)), ['path', 'key_id'], 'uuid_parsing');
    expectIssue(await gateway().post('/api/v1/auth/keys/not-a-uuid/rotate').set(bearer(adminKey)), ['path', 'key_id'], 'uuid_parsing');
  });

  it('answers 422 for a body that is not JSON', async () => {
    const res = await gateway().post('/api/v1/auth/keys').set(bearer(adminKey)).set('content-type', 'application/json').send('{nope');
    expect(res.status).toBe(422);
  });
});
