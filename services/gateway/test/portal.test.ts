import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import request from 'supertest';
import { IDENTITY_HEADER, PortalTokens, verifyIdentity } from '@trove/platform';
import { bearer, devTenant, startRecordingUpstream, startStack, type Stack } from './support';

let stack: Stack;
let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
let gateway: () => ReturnType<typeof request>;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  stack = await startStack({ RECORDS_URL: upstream.url, INGESTION_URL: upstream.url, SEARCH_URL: upstream.url, OPEN_URL: upstream.url });
  gateway = () => request(stack.gateway.instance.app);
});
afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
});

const lastReceived = () => upstream.received[upstream.received.length - 1]!;

async function signUp() {
  const res = await gateway()
    .post('/api/v1/portal/auth/signup')
    .send({ email: `p-${randomUUID()}@example.com`, password: 'a long enough password' });
  expect(res.status).toBe(201);
  return res.body as { token: string; account: { user_id: string; tenant_id: string } };
}

async function adminKey(tenant = randomUUID()): Promise<string> {
  const res = await gateway().post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'admin', scopes: ['admin'] });
  expect(res.status).toBe(201);
  return res.body.key;
}

describe('portal sign-in through the gateway', () => {
  it('signs up and logs in without a credential, and the token opens the portal routes', async () => {
    const { token, account } = await signUp();

    const got = await gateway().get('/api/v1/portal/account').set(bearer(token));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject(account);
  });

  it('forwards a portal token as the person of its tenant, with every scope and the plan', async () => {
    const { token, account } = await signUp();
    const res = await gateway().get('/api/v1/portal/collections').set(bearer(token));

    expect(res.status).toBe(200);
    const identity = verifyIdentity(lastReceived().headers[IDENTITY_HEADER] as string, stack.gateway.ctx.config.INTERNAL_TOKEN_SECRET);
    expect(identity).toEqual({ tenantId: account.tenant_id, principal: `user:${account.user_id}`, scopes: ['admin'], plan: 'enterprise' });
    expect(lastReceived().headers.authorization).toBeUndefined();
  });

  it('routes each portal path to its owner, the replace upload by its * segment', async () => {
    const { token } = await signUp();
    const cases: [string, string, string][] = [
      ['POST', '/api/v1/portal/collections/parts/replace?record_type=t', '/portal/collections/parts/replace?record_type=t'],
      ['GET', '/api/v1/portal/collections/parts/replace-status', '/portal/collections/parts/replace-status'],
      ['POST', '/api/v1/portal/search/parts', '/portal/search/parts'],
      ['GET', '/api/v1/portal/analytics', '/portal/analytics'],
    ];
    for (const [method, path, forwarded] of cases) {
      const res = await gateway()[method === 'GET' ? 'get' : 'post'](path).set(bearer(token));
      expect({ path, status: res.status, url: lastReceived().url }).toEqual({ path, status: 200, url: forwarded });
    }
    expect((await gateway().get('/api/v1/portal/nothing').set(bearer(token))).status).toBe(404);
  });
});

describe('which credential a route takes', () => {
  it('refuses a portal token on key routes with 401', async () => {
    const { token } = await signUp();
    for (const path of ['/api/v1/auth/keys', '/api/v1/records', '/api/v1/search/parts']) {
      const res = await gateway().get(path).set(bearer(token));
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('refuses an API key on portal routes with 401, an admin key too', async () => {
    const key = await adminKey();
    const before = upstream.received.length;
    for (const path of ['/api/v1/portal/account', '/api/v1/portal/keys', '/api/v1/portal/collections']) {
      const res = await gateway().get(path).set(bearer(key));
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    expect(upstream.received.length).toBe(before);
  });

  it('never takes X-Tenant-Id on portal routes, even in development, nor lets it change the token’s tenant', async () => {
    const res = await gateway().get('/api/v1/portal/account').set(devTenant(randomUUID()));
    expect(res.status).toBe(401);

    const { token, account } = await signUp();
    const other = randomUUID();
    const withHeader = await gateway().get('/api/v1/portal/collections').set(bearer(token)).set(devTenant(other));
    expect(withHeader.status).toBe(200);
    expect(verifyIdentity(lastReceived().headers[IDENTITY_HEADER] as string, stack.gateway.ctx.config.INTERNAL_TOKEN_SECRET)?.tenantId).toBe(
      account.tenant_id,
    );
    expect(lastReceived().headers['x-tenant-id']).toBeUndefined();
  });

  it('refuses forged, unsigned, expired and malformed portal tokens with 401', async () => {
    const { account } = await signUp();
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: account.user_id, tid: account.tenant_id, plan: 'enterprise', iss: 'trove-auth', aud: 'trove-portal', iat: now, exp: now + 600 };
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    /** A JWT signed by hand, so the test controls every part of it. */
    const sign = (payload: object, key: string, alg: 'HS256' | 'HS512' = 'HS256') => {
      const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
      return `${unsigned}.${createHmac(alg === 'HS256' ? 'sha256' : 'sha512', key).update(unsigned).digest('base64url')}`;
    };
    const secret = stack.auth.ctx.config.JWT_SECRET!;
    const tokens = [
      sign(claims, 'someone-elses-secret-of-at-least-32-chars'),
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      sign({ ...claims, exp: now - 10 }, secret),
      sign(claims, secret, 'HS512'),
      sign({ ...claims, aud: 'trove-services' }, secret),
      'not.a.token',
    ];
    for (const token of tokens) {
      const res = await gateway().get('/api/v1/portal/account').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    // The same claims signed as auth signs them pass, so the refusals above are the forgery, not the claims.
    expect((await gateway().get('/api/v1/portal/account').set(bearer(sign(claims, secret)))).status).toBe(200);
  });

  it('verifies with the public key alone when auth signs with RS256', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const gw = await stack.startGateway({ JWT_SECRET: '', JWT_PUBLIC_KEY: publicKey });
    const { account } = await signUp();
    const token = new PortalTokens({ JWT_PRIVATE_KEY: privateKey, JWT_TTL_SECONDS: 600 }).sign({
      userId: account.user_id,
      tenantId: account.tenant_id,
      plan: 'enterprise',
    });

    expect((await request(gw.instance.app).get('/api/v1/portal/account').set(bearer(token))).status).toBe(200);
    const hs = (await signUp()).token;
    expect((await request(gw.instance.app).get('/api/v1/portal/account').set(bearer(hs))).status).toBe(401);
  });
});

describe('portal keys through the gateway', () => {
  it('a key revoked in the portal stops working at once, also where the gateway had cached it', async () => {
    const { token } = await signUp();
    const created = await gateway().post('/api/v1/portal/keys').set(bearer(token)).send({ name: 'ops', scopes: ['admin'] });
    expect(created.status).toBe(201);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(created.body.key))).status).toBe(200);

    expect((await gateway().delete(`/api/v1/portal/keys/${created.body.id}`).set(bearer(token))).status).toBe(204);
    expect((await gateway().get('/api/v1/auth/keys').set(bearer(created.body.key))).status).toBe(401);
  });
});
