import { randomUUID } from 'node:crypto';
import { bearer, devTenant, useTrove } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove();
const api = trove.api;

const KEY_FORMAT = /^sk_live_[0-9a-f]{64}$/;

describe('API key lifecycle through the gateway', () => {
  const tenant = randomUUID();
  let adminKey: string;

  it('bootstraps a first admin key with X-Tenant-Id in development', async () => {
    const res = await api('POST', '/api/v1/auth/keys', { headers: devTenant(tenant), body: { name: 'bootstrap', scopes: ['admin'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'bootstrap',
      key: expect.stringMatching(KEY_FORMAT),
      scopes: ['admin'],
      expires_at: null,
      message: expect.any(String),
    });
    adminKey = res.body.key;
  });

  it('rejects requests without a key, and with a malformed or unknown one', async () => {
    expect((await api('GET', '/api/v1/auth/keys')).status).toBe(401);
    const bad = await api('GET', '/api/v1/auth/keys', { headers: bearer('sk_live_nope') });
    expect(bad.status).toBe(401);
    expect(typeof bad.body.detail).toBe('string');
    const unknown = await api('GET', '/api/v1/auth/keys', { headers: bearer(`sk_live_${'a'.repeat(64)}`) });
    expect(unknown.status).toBe(401);
  });

  it('creates, lists (without values), rotates and revokes keys, each taking effect at once', async () => {
    const created = await api('POST', '/api/v1/auth/keys', {
      headers: bearer(adminKey),
      body: { name: 'search-only', scopes: ['search'] },
    });
    expect(created.status).toBe(201);
    const searchKey: string = created.body.key;

    const list = await api('GET', '/api/v1/auth/keys', { headers: bearer(adminKey) });
    expect(list.status).toBe(200);
    expect(list.body.map((k: { name: string }) => k.name)).toEqual(['bootstrap', 'search-only']);
    expect(list.text).not.toContain('sk_live_');
    for (const k of list.body) expect(Object.keys(k).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scopes']);

    // A search-only key lacks the admin scope key management needs.
    expect((await api('GET', '/api/v1/auth/keys', { headers: bearer(searchKey) })).status).toBe(403);

    // Rotation keeps id, name and scopes, and kills the old value at once.
    const recordsKey = await api('POST', '/api/v1/auth/keys', { headers: bearer(adminKey), body: { name: 'rw', scopes: ['records'] } });
    const oldValue: string = recordsKey.body.key;
    expect((await api('GET', '/api/v1/records', { headers: bearer(oldValue) })).status).toBe(200);
    const rotated = await api('POST', `/api/v1/auth/keys/${recordsKey.body.id}/rotate`, { headers: bearer(adminKey) });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: recordsKey.body.id, name: 'rw', scopes: ['records'], key: expect.stringMatching(KEY_FORMAT) });
    expect(rotated.body.key).not.toBe(oldValue);
    expect((await api('GET', '/api/v1/records', { headers: bearer(oldValue) })).status).toBe(401);
    expect((await api('GET', '/api/v1/records', { headers: bearer(rotated.body.key) })).status).toBe(200);

    // Revocation stops the key at once, though the gateway had it cached.
    const del = await api('DELETE', `/api/v1/auth/keys/${recordsKey.body.id}`, { headers: bearer(adminKey) });
    expect(del.status).toBe(204);
    expect((await api('GET', '/api/v1/records', { headers: bearer(rotated.body.key) })).status).toBe(401);
    const after = await api('GET', '/api/v1/auth/keys', { headers: bearer(adminKey) });
    expect(after.body.map((k: { name: string }) => k.name)).toEqual(['bootstrap', 'search-only']);
  });

  it('rejects an expired key', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const res = await api('POST', '/api/v1/auth/keys', { headers: bearer(adminKey), body: { name: 'short', scopes: ['records'], expires_at: soon } });
    expect(res.status).toBe(201);
    expect(new Date(res.body.expires_at).getTime()).toBe(new Date(soon).getTime());
    expect((await api('GET', '/api/v1/records', { headers: bearer(res.body.key) })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await api('GET', '/api/v1/records', { headers: bearer(res.body.key) })).status).toBe(401);
  });

  it('answers bad key requests with the 422 validation body', async () => {
    const res = await api('POST', '/api/v1/auth/keys', { headers: bearer(adminKey), body: { scopes: ['everything'] } });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.scopes.0']));
    for (const d of res.body.detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    const notUuid = await api('DELETE', '/api/v1/auth/keys/not-a-uuid', { headers: bearer(adminKey) });
    expect(notUuid.status).toBe(422);
  });

  it("keeps a second tenant away from the first tenant's keys", async () => {
    const other = await api('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'other', scopes: ['admin'] } });
    const otherKey = other.body.key;
    const theirs = await api('GET', '/api/v1/auth/keys', { headers: bearer(otherKey) });
    expect(theirs.body.map((k: { name: string }) => k.name)).toEqual(['other']);
    const mine = await api('GET', '/api/v1/auth/keys', { headers: bearer(adminKey) });
    const victim = mine.body[0].id;
    expect((await api('DELETE', `/api/v1/auth/keys/${victim}`, { headers: bearer(otherKey) })).status).toBe(404);
    expect((await api('POST', `/api/v1/auth/keys/${victim}/rotate`, { headers: bearer(otherKey) })).status).toBe(404);
    expect((await api('GET', '/api/v1/auth/keys', { headers: bearer(adminKey) })).status).toBe(200);
  });

  it('never writes a key value to the logs', () => {
    expect(trove.output()).not.toMatch(/sk_live_[0-9a-f]{64}/);
  });
});
