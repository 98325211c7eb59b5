import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { IDENTITY_HEADER, listen, verifyIdentity } from '@trove/platform';
import { bearer, closedPort, devTenant, startRecordingUpstream, startStack, type Stack } from './support';

let stack: Stack;
let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
let gateway: () => ReturnType<typeof request>;
let secret: string;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const down = `http://127.0.0.1:${await closedPort()}`;
  stack = await startStack({
    RECORDS_URL: down,
    INGESTION_URL: upstream.url,
    SEARCH_URL: upstream.url,
    OPEN_URL: upstream.url,
    MCP_URL: upstream.url,
  });
  gateway = () => request(stack.gateway.instance.app);
  secret = stack.gateway.ctx.config.INTERNAL_TOKEN_SECRET;
});
afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
});

const lastReceived = () => upstream.received[upstream.received.length - 1]!;

describe('health and metrics', () => {
  it.each(['/health', '/api/v1/health'])('answers %s without a key', async (path) => {
    const res = await gateway().get(path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it.each(['/health/ready', '/api/v1/health/ready'])('reports what the gateway alone needs, its database, event bus and counter store, as up on %s', async (path) => {
    const res = await gateway().get(path);
    expect(res.status).toBe(200);
    expect(res.body.dependencies).toEqual({ database: 'up', events: 'up', cache: 'up' });
  });

  it.each(['/metrics', '/api/v1/metrics'])('serves Prometheus text on %s', async (path) => {
    const res = await gateway().get(path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total');
  });

  it('stays ready while the auth service is down: only what needs a key answers 503', async () => {
    const gw = await stack.startGateway({ AUTH_URL: `http://127.0.0.1:${await closedPort()}` });
    expect((await request(gw.instance.app).get('/api/v1/health/ready')).status).toBe(200);
    const keyed = await request(gw.instance.app).get('/api/v1/records').set('authorization', 'Bearer sk_live_' + '0'.repeat(64));
    expect(keyed.status).toBe(503);
    expect(keyed.body.detail).toContain('auth');
    expect((await request(gw.instance.app).get('/open/v1/collections')).status).not.toBe(503);
  });

  it('stays ready while search is down: the search routes answer 503, the others as usual', async () => {
    const gw = await stack.startGateway({ SEARCH_URL: `http://127.0.0.1:${await closedPort()}` });
    const ready = await request(gw.instance.app).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.dependencies).toEqual({ database: 'up', events: 'up', cache: 'up' });
    const tenant = devTenant(randomUUID());
    const search = await request(gw.instance.app).post('/api/v1/search/parts').set(tenant).send({ query: 'bolt' });
    expect(search.status).toBe(503);
    expect(search.body).toEqual({ detail: 'The search service is unavailable; try again shortly' });
    // Ingestion (this stack's recording upstream) answers as usual through the same gateway.
    const upload = await request(gw.instance.app).post('/api/v1/upload/parts/product/batch').set(tenant).send({ records: [{ name: 'Bolt' }] });
    expect(upload.status).toBe(200);
    expect(lastReceived().url).toBe('/upload/parts/product/batch');
  });
});

describe('routing', () => {
  it.each(['/api/v1/nothing-here', '/api/v1', '/elsewhere', '/api/v1/billing/status'])('answers 404 with a detail for %s', async (path) => {
    const res = await gateway().get(path).set(devTenant(randomUUID()));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it.each(['/api/v1/internal/keys/verify', '/api/v1/auth/../internal/keys/verify', '/api/v1/auth/%2e%2e/internal/keys/verify'])(
    'never forwards %s to a service',
    async (path) => {
      const res = await gateway().post(path).set(devTenant(randomUUID())).send({ key: 'x' });
      expect(res.status).toBe(404);
    },
  );

  // Services route case-insensitively and read percent-encoding, so each of these would reach a /internal route.
  const INTERNAL_SPELLINGS = [
    '/open/v1/internal/open/search-counts',
    '/open/v1/INTERNAL/open/search-counts',
    '/open/v1/Internal/open/search-counts',
    '/open/v1//internal/open/search-counts',
    '/open/v1//INTERNAL/open/search-counts',
    '/open/v1/%69nternal/open/search-counts',
    '/open/v1/search/..%2F..%2Finternal/open/search-counts',
    '/open/v1/search/%2E%2E/internal/open/search-counts',
    '/open/v1/search%5C..%5Cinternal/open/search-counts',
    '/open/v1/search%252F..%252Finternal/open/search-counts',
    '/api/v1/Internal/keys/verify',
    '/api/v1//internal/keys/verify',
  ];

  it.each(INTERNAL_SPELLINGS)('answers 404 to %s, without a credential, and forwards nothing', async (path) => {
    const before = upstream.received.length;
    const res = await gateway().get(`${path}?tenant_id=${randomUUID()}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(upstream.received.length).toBe(before);
  });

  it('answers 404 to every spelling of an internal route in production too, with a valid key', async () => {
    const prod = await stack.startGateway({ ENV: 'production', API_KEY_SALT: stack.auth.ctx.config.API_KEY_SALT });
    const tenant = randomUUID();
    const key = (await gateway().post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'x', scopes: ['admin'] })).body.key;
    const before = upstream.received.length;
    for (const path of INTERNAL_SPELLINGS) {
      expect({ path, status: (await request(prod.instance.app).get(`${path}?tenant_id=${tenant}`).set(bearer(key))).status }).toEqual({ path, status: 404 });
    }
    expect(upstream.received.length).toBe(before);
  });

  it.each(['/API/v1/uploads/1', '/api/V1/uploads/1', '/api/v1/UPLOADS/1', '/Open/v1/collections', '/MCP/'])(
    'answers 404 to %s, a route spelled in another case, and forwards nothing',
    async (path) => {
      const before = upstream.received.length;
      const res = await gateway().get(path).set(devTenant(randomUUID()));
      expect(res.status).toBe(404);
      expect(upstream.received.length).toBe(before);
    },
  );

  it('answers 503 naming the service when it is down, also once its breaker is open', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await gateway().get('/api/v1/records').set(devTenant(randomUUID()));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'The records service is unavailable; try again shortly' });
    }
  });

  it('answers 503 naming auth when a key cannot be verified', async () => {
    const gw = await stack.startGateway({ AUTH_URL: `http://127.0.0.1:${await closedPort()}` });
    const res = await request(gw.instance.app).get('/api/v1/records').set(bearer(`sk_live_${'b'.repeat(64)}`));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'The auth service is unavailable; try again shortly' });
  });
});

describe('forwarding', () => {
  it('strips /api/v1, keeps the query, and replaces the caller credentials by a signed identity and the request id', async () => {
    const tenant = randomUUID();
    const res = await gateway().post('/api/v1/upload/parts/bolt/batch?dry=1').set(devTenant(tenant)).set('X-Request-Id', 'req-42').send({ records: [] });
    expect(res.status).toBe(200);
    const got = lastReceived();
    expect(got.url).toBe('/upload/parts/bolt/batch?dry=1');
    expect(got.headers['x-tenant-id']).toBeUndefined();
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers['x-request-id']).toBe('req-42');
    expect(res.headers['x-request-id']).toBe('req-42');
    expect(verifyIdentity(got.headers[IDENTITY_HEADER] as string, secret)).toEqual({
      tenantId: tenant,
      principal: `dev:${tenant}`,
      scopes: ['admin'],
      plan: undefined,
    });
  });

  it('forwards the identity also when the client asks for 100 Continue, as curl does for large uploads', async () => {
    const tenant = randomUUID();
    // A raw client: it sends the headers, waits for 100 Continue, then the body (superagent cannot send Expect).
    const server = await listen(stack.gateway.instance.app, 0, '127.0.0.1');
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ records: [] });
      const req = httpRequest({
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/api/v1/upload/parts/bolt/batch',
        headers: { ...devTenant(tenant), expect: '100-continue', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
    });
    await server.close(1000);
    expect(status).toBe(200);
    const got = lastReceived();
    expect(got.headers.expect).toBeUndefined();
    expect(verifyIdentity(got.headers[IDENTITY_HEADER] as string, secret)).toMatchObject({ tenantId: tenant });
  });

  it('forwards the identity of an API key, with its scopes and plan, and not the key', async () => {
    const tenant = randomUUID();
    const admin = await gateway().post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'a', scopes: ['admin'] });
    const key = await gateway().post('/api/v1/auth/keys').set(bearer(admin.body.key)).send({ name: 's', scopes: ['search'] });
    const res = await gateway().post('/api/v1/search/parts').set(bearer(key.body.key)).send({ query: 'bolt' });
    expect(res.status).toBe(200);
    const got = lastReceived();
    expect(got.url).toBe('/search/parts');
    expect(got.headers.authorization).toBeUndefined();
    expect(JSON.stringify(got.headers)).not.toContain(key.body.key);
    expect(verifyIdentity(got.headers[IDENTITY_HEADER] as string, secret)).toEqual({
      tenantId: tenant,
      principal: `key:${key.body.id}`,
      scopes: ['search'],
      plan: 'enterprise',
    });
  });

  it('streams a body larger than any JSON limit through unparsed', async () => {
    const big = JSON.stringify({ records: [{ name: 'x'.repeat(5 * 1024 * 1024) }] });
    const res = await gateway().post('/api/v1/upload/parts/bolt/batch').set(devTenant(randomUUID())).set('content-type', 'application/json').send(big);
    expect(res.status).toBe(200);
    expect(res.body.bodyBytes).toBe(Buffer.byteLength(big));
  });

  it("passes an upstream's own error answer through unchanged", async () => {
    const res = await gateway().get('/api/v1/uploads/fail').set(devTenant(randomUUID()));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'upstream failed' });
  });

  it('ends the response when the upstream drops the connection half-way', async () => {
    const outcome = await gateway()
      .get('/api/v1/uploads/die')
      .set(devTenant(randomUUID()))
      .timeout(3_000)
      .then(
        () => 'ended',
        (err: { timeout?: number }) => (err.timeout ? 'still waiting' : 'ended'),
      );
    expect(outcome).toBe('ended');
  });

  it('forwards exactly the path it matched: repeated slashes collapsed, unreserved characters decoded', async () => {
    const res = await gateway().get('/api/v1//uploads///%41b-1/?x=%2F').set(devTenant(randomUUID()));
    expect(res.status).toBe(200);
    expect(lastReceived().url).toBe('/uploads/Ab-1/?x=%2F');
  });

  it('forwards the Open API without a credential, stripping /open/v1', async () => {
    const res = await gateway().get('/open/v1/collections?q=bolt');
    expect(res.status).toBe(200);
    const got = lastReceived();
    expect(got.url).toBe('/collections?q=bolt');
    expect(verifyIdentity(got.headers[IDENTITY_HEADER] as string, secret)).toMatchObject({ principal: 'anonymous', scopes: [] });
  });

  it('forwards /api/v1/health/search to search without a key', async () => {
    const res = await gateway().get('/api/v1/health/search');
    expect(res.status).toBe(200);
    expect(lastReceived().url).toBe('/health/search');
  });

  it('forwards /mcp/ unchanged and requires a key for it', async () => {
    expect((await gateway().post('/mcp/').send({})).status).toBe(401);
    const res = await gateway().post('/mcp/').set(devTenant(randomUUID())).send({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(res.status).toBe(200);
    expect(lastReceived().url).toBe('/mcp/');
  });
});

describe('production mode', () => {
  it('ignores X-Tenant-Id and still accepts API keys', async () => {
    const prod = await stack.startGateway({ ENV: 'production', API_KEY_SALT: stack.auth.ctx.config.API_KEY_SALT });
    const tenant = randomUUID();
    const refused = await request(prod.instance.app).post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'x', scopes: ['admin'] });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: expect.any(String) });

    const created = await gateway().post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'x', scopes: ['admin'] });
    expect((await request(prod.instance.app).get('/api/v1/auth/keys').set(bearer(created.body.key))).status).toBe(200);
  });
});
