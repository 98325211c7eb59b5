import { randomUUID } from 'node:crypto';
import { signUp, portalAuth } from './support/portal';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

const { api } = useTrove();

describe('portal sign-in through the gateway', () => {
  it('signs up, reads the account with the token, and logs in again with the same password', async () => {
    const { token, account, email, password } = await signUp(api, { display_name: 'Ada', company: 'Engines' });

    const got = await api('GET', '/api/v1/portal/account', { headers: portalAuth(token) });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(account);
    expect(account).toEqual(expect.objectContaining({ email, display_name: 'Ada', company: 'Engines' }));

    const login = await api('POST', '/api/v1/portal/auth/login', { body: { email: email.toUpperCase(), password } });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: 3600, account });

    const wrong = await api('POST', '/api/v1/portal/auth/login', { body: { email, password: 'not the password' } });
    const unknown = await api('POST', '/api/v1/portal/auth/login', { body: { email: `${randomUUID()}@example.com`, password: 'not the password' } });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('answers 409 to a second signup with the same email, and 422 to a short password', async () => {
    const { email } = await signUp(api);
    expect((await api('POST', '/api/v1/portal/auth/signup', { body: { email: email.toUpperCase(), password: 'another long password' } })).status).toBe(409);
    expect((await api('POST', '/api/v1/portal/auth/signup', { body: { email: `${randomUUID()}@example.com`, password: 'short' } })).status).toBe(422);
  });

  it('creates a key in the portal that works on the key API for the same tenant, until it is deleted in the portal', async () => {
    const { token } = await signUp(api);
    const created = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(token), body: { name: 'loader', scopes: ['records'] } });
    expect(created.status).toBe(201);

    const listed = await api('GET', '/api/v1/portal/keys', { headers: portalAuth(token) });
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([created.body.id]);

    const record = await api('POST', '/api/v1/records', {
      headers: bearer(created.body.key),
      body: { name: 'Hex bolt M8', collection: 'parts', record_type: 'bolt' },
    });
    expect(record.status).toBe(201);
    expect((await api('GET', `/api/v1/records/${record.body.id}`, { headers: bearer(created.body.key) })).status).toBe(200);

    // A key is refused on the portal, and the portal token on the key API.
    expect((await api('GET', '/api/v1/portal/keys', { headers: bearer(created.body.key) })).status).toBe(401);
    expect((await api('GET', '/api/v1/records', { headers: portalAuth(token) })).status).toBe(401);

    const rotated = await api('POST', `/api/v1/portal/keys/${created.body.id}/rotate`, { headers: portalAuth(token) });
    expect(rotated.status).toBe(200);
    expect((await api('GET', '/api/v1/records', { headers: bearer(created.body.key) })).status).toBe(401);
    expect((await api('GET', '/api/v1/records', { headers: bearer(rotated.body.key) })).status).toBe(200);

    expect((await api('DELETE', `/api/v1/portal/keys/${created.body.id}`, { headers: portalAuth(token) })).status).toBe(204);
    expect((await api('GET', '/api/v1/records', { headers: bearer(rotated.body.key) })).status).toBe(401);
  });

  it("keeps each person to their own tenant's keys", async () => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const key = await api('POST', '/api/v1/portal/keys', { headers: portalAuth(owner.token), body: { name: 'mine', scopes: ['search'] } });

    expect((await api('DELETE', `/api/v1/portal/keys/${key.body.id}`, { headers: portalAuth(stranger.token) })).status).toBe(404);
    expect((await api('GET', '/api/v1/portal/keys', { headers: portalAuth(stranger.token) })).body).toEqual({ keys: [] });
  });

  it('refuses a forged token and X-Tenant-Id on portal routes', async () => {
    expect((await api('GET', '/api/v1/portal/account', { headers: bearer('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.') })).status).toBe(401);
    expect((await api('GET', '/api/v1/portal/account', { headers: { 'x-tenant-id': randomUUID() } })).status).toBe(401);
  });
});
