import express from 'express';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { ERRORS } from './errors';
import { createServiceApp, identityOf, metricsOf, requireScope, serveProcessMetrics, type ServiceAppOptions } from './http';
import { IDENTITY_HEADER, signIdentity, type Identity } from './identity';
import { createMetrics, defaultMetricsRegistry, renderMetrics, type ProcessMetrics } from './metrics';
import { parseInput } from './validation';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const tenant: Identity = { tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['search'] };
const auth = (identity: Identity = tenant) => ({ [IDENTITY_HEADER]: signIdentity(identity, SECRET) });

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function buildApp(overrides: Partial<ServiceAppOptions> = {}) {
  const { logger, lines } = capturingLogger();
  const app = createServiceApp({
    name: 'records',
    logger,
    internalTokenSecret: SECRET,
    jsonLimit: '1kb',
    routes: (router) => {
      router.get('/items/:id', (req, res) => {
        res.json({ id: req.params.id, tenant: identityOf(req).tenantId });
      });
      router.post('/items', (req, res) => {
        const body = parseInput(z.strictObject({ name: z.string().max(10) }), req.body, 'body');
        res.status(201).json(body);
      });
      router.get('/boom', () => {
        throw new Error('connection string postgres://admin:hunter2@db leaked');
      });
      router.get('/async-boom', async () => {
        await Promise.resolve();
        throw new TypeError('cannot read properties of undefined');
      });
      router.get('/limited', () => {
        throw ERRORS.tooManyRequests('Slow down', { 'Retry-After': '7' });
      });
      router.delete('/items/:id', requireScope('admin'), (_req, res) => {
        res.status(204).end();
      });
      router.post('/upload/piped', (req, res, next) => {
        req.on('error', next);
        req.on('data', () => undefined);
        req.on('end', () => res.json({ ok: true }));
      });
      router.post('/upload/raw', (req, res) => {
        let size = 0;
        req.on('data', (chunk: Buffer) => (size += chunk.length));
        req.on('end', () => res.json({ parsed: req.body !== undefined, size }));
      });
    },
    rawBodyPaths: [/^\/upload\//],
    ...overrides,
  });
  return { app, lines };
}

describe('createServiceApp: health and metrics', () => {
  it('answers /health without an identity', async () => {
    const res = await request(buildApp().app).get('/health');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'records' });
  });

  it('answers /health/ready with every dependency up', async () => {
    const { app } = buildApp({ readiness: { database: async () => undefined, bus: async () => undefined } });

    const res = await request(app).get('/health/ready');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', service: 'records', dependencies: { database: 'up', bus: 'up' } });
  });

  it('answers /health/ready with 503 naming the dependency that is down', async () => {
    const { app } = buildApp({
      readiness: {
        database: async () => undefined,
        search: async () => {
          throw new Error('ECONNREFUSED');
        },
      },
    });

    const res = await request(app).get('/health/ready');

    expect(res.status).toBe(503);
    expect(res.body.detail).toBe('search is down');
    expect(res.body.dependencies).toEqual({ database: 'up', search: 'down' });
  });

  it('names every dependency that is down', async () => {
    const down = async () => {
      throw new Error('down');
    };
    const { app } = buildApp({ readiness: { search: down, database: down } });

    const res = await request(app).get('/health/ready');

    expect(res.status).toBe(503);
    expect(res.body.detail).toBe('database, search are down');
  });

  it('counts a dependency that does not answer in time as down', async () => {
    const { app } = buildApp({ readiness: { database: () => new Promise<void>(() => undefined) }, readinessTimeoutMs: 100 });

    const res = await request(app).get('/health/ready');

    expect(res.status).toBe(503);
    expect(res.body.detail).toBe('database is down');
  });

  it('serves Prometheus text with request counts labelled by route template', async () => {
    const { app } = buildApp();
    await request(app).get('/items/42').set(auth());

    const res = await request(app).get('/metrics');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE http_requests_total counter');
    expect(res.text).toMatch(/http_requests_total\{[^}]*method="GET"[^}]*route="\/items\/:id"[^}]*status="200"[^}]*\} 1/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
  });
});

describe("createServiceApp: a process's metrics", () => {
  it('serves on every app the series of every service of the process, one family per name, labelled by service', async () => {
    const records = buildApp().app;
    const search = buildApp({ name: 'search' }).app;
    const served: ProcessMetrics = { enabled: true, registries: [defaultMetricsRegistry(), metricsOf(records)!.registry, metricsOf(search)!.registry] };
    serveProcessMetrics(records, served);
    serveProcessMetrics(search, served);
    await request(records).get('/items/42').set(auth());
    await request(search).get('/items/7').set(auth());

    for (const app of [records, search]) {
      const res = await request(app).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/items\/:id"[^}]*service="records"[^}]*\} 1/);
      expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/items\/:id"[^}]*service="search"[^}]*\} 1/);
      expect(res.text.match(/^# TYPE http_requests_total counter$/gm)).toHaveLength(1);
      expect(res.text.match(/^# TYPE http_request_duration_seconds histogram$/gm)).toHaveLength(1);
      expect(res.text.match(/^process_start_time_seconds /gm)).toHaveLength(1);
    }
  });

  it('renders registries holding the same names, which Registry.merge refuses, as one text', async () => {
    const a = createMetrics('records');
    const b = createMetrics('ingestion');
    a.requests.inc({ method: 'GET', route: '/a', status: '200' });
    b.requests.inc({ method: 'POST', route: '/b', status: '201' }, 2);

    const text = await renderMetrics([a.registry, b.registry]);

    expect(text).toContain('http_requests_total{method="GET",route="/a",status="200",service="records"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/b",status="201",service="ingestion"} 2');
    expect(text.match(/^# HELP http_requests_total /gm)).toHaveLength(1);
  });

  it('answers /metrics 404 when the process has metrics off (METRICS_ENABLED=false), as an unknown route', async () => {
    const { app } = buildApp();
    serveProcessMetrics(app, { enabled: false, registries: [] });

    const res = await request(app).get('/metrics');

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'No route for GET /metrics' });
    expect((await request(app).get('/health')).status).toBe(200);
  });
});

describe('createServiceApp: internal identity', () => {
  it('refuses a request without an identity token', async () => {
    const res = await request(buildApp().app).get('/items/1');

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('refuses a token signed with another secret', async () => {
    const forged = signIdentity(tenant, 'some-other-secret-that-is-long-enough!!');

    const res = await request(buildApp().app).get('/items/1').set(IDENTITY_HEADER, forged);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('refuses an expired token', async () => {
    const expired = jwt.sign({ tid: tenant.tenantId, scopes: tenant.scopes, exp: Math.floor(Date.now() / 1000) - 1 }, SECRET, {
      algorithm: 'HS256',
      issuer: 'trove-gateway',
      audience: 'trove-services',
      subject: tenant.principal,
    });

    const res = await request(buildApp().app).get('/items/1').set(IDENTITY_HEADER, expired);

    expect(res.status).toBe(401);
  });

  it('hands the verified identity to the route', async () => {
    const res = await request(buildApp().app).get('/items/1').set(auth());

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: '1', tenant: tenant.tenantId });
  });

  it('answers 403 when the identity lacks the scope a route requires', async () => {
    const { app } = buildApp();

    expect((await request(app).delete('/items/1').set(auth())).status).toBe(403);
    expect((await request(app).delete('/items/1').set(auth({ ...tenant, scopes: ['admin'] }))).status).toBe(204);
  });

  it('needs no identity on a service built without a secret (the gateway)', async () => {
    const { app } = buildApp({
      internalTokenSecret: undefined,
      routes: (router) => router.get('/open', (_req, res) => void res.json({ ok: true })),
    });

    expect((await request(app).get('/open')).status).toBe(200);
  });
});

describe('createServiceApp: internal routes', () => {
  const internalApp = () =>
    buildApp({
      routes: (router) => {
        router.get('/internal/open/search-counts', (req, res) => void res.json({ tenant: identityOf(req).tenantId, caller: identityOf(req).caller }));
        router.get('/items/:id', (req, res) => void res.json({ id: req.params.id }));
      },
    }).app;

  it.each([
    '/internal/open/search-counts',
    '/INTERNAL/open/search-counts',
    '/Internal/open/search-counts',
    '//internal/open/search-counts',
    '/%69nternal/open/search-counts',
    '/internal',
  ])('answers %s to a forwarded (user) identity as an unknown route', async (path) => {
    const res = await request(internalApp()).get(path).set(auth({ ...tenant, scopes: ['admin'] }));

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `No route for GET ${path}` });
  });

  it("answers another service's call, which names its caller", async () => {
    const res = await request(internalApp()).get('/internal/open/search-counts').set(auth({ ...tenant, caller: 'mcp' }));

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant: tenant.tenantId, caller: 'mcp' });
  });

  it('still refuses a request without any identity with 401', async () => {
    expect((await request(internalApp()).get('/internal/open/search-counts')).status).toBe(401);
  });

  it('leaves other routes to forwarded identities', async () => {
    expect((await request(internalApp()).get('/items/internal').set(auth())).status).toBe(200);
  });
});

describe('createServiceApp: request bodies', () => {
  it('passes a valid JSON body to the route', async () => {
    const res = await request(buildApp().app).post('/items').set(auth()).send({ name: 'Bolt' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'Bolt' });
  });

  it('answers 422 json_invalid for malformed JSON', async () => {
    const res = await request(buildApp().app).post('/items').set(auth()).set('Content-Type', 'application/json').send('{"name": ');

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: expect.any(String) } },
    ]);
  });

  it("answers 422 with the schema's issues for a body that does not fit", async () => {
    const res = await request(buildApp().app).post('/items').set(auth()).send({ name: 'much too long a name', colour: 'red' });

    expect(res.status).toBe(422);
    expect(res.body.detail.map((i: { type: string }) => i.type).sort()).toEqual(['extra_forbidden', 'string_too_long']);
  });

  it('answers 413 with a detail for a body over the limit', async () => {
    const res = await request(buildApp().app)
      .post('/items')
      .set(auth())
      .send({ name: 'x'.repeat(5_000) });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.stringContaining('limit') });
  });

  it('leaves the body of a raw path unparsed, for streaming', async () => {
    const body = JSON.stringify({ data: 'y'.repeat(5_000) });

    const res = await request(buildApp().app).post('/upload/raw').set(auth()).set('Content-Type', 'application/json').send(body);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ parsed: false, size: body.length });
  });
});

describe('createServiceApp: errors', () => {
  it('answers 404 with a detail for an unknown route', async () => {
    const res = await request(buildApp().app).get('/nothing/here').set(auth());

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 500 without internals for an unexpected error, and logs it with the request id', async () => {
    const { app, lines } = buildApp();

    const res = await request(app).get('/boom').set(auth()).set('X-Request-Id', 'req-boom-1');

    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal server error' });
    expect(res.text).not.toContain('hunter2');
    const logged = lines.find((l) => l.msg === 'unhandled error');
    expect(logged).toEqual(expect.objectContaining({ requestId: 'req-boom-1' }));
    expect(JSON.stringify(logged)).toContain('leaked');
  });

  it('answers 500 for an error thrown by an async route', async () => {
    const res = await request(buildApp().app).get('/async-boom').set(auth());

    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal server error' });
  });

  it("renders a catalogue error with its status, detail and headers", async () => {
    const res = await request(buildApp().app).get('/limited').set(auth());

    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: 'Slow down' });
    expect(res.headers['retry-after']).toBe('7');
  });

  it('answers 400, not 500, for a path that is not valid percent-encoding', async () => {
    const { app, lines } = buildApp();

    const res = await request(app).get('/items/%E0%A4%A').set(auth());

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });
});

describe('createServiceApp: clients that go away', () => {
  it('logs a request whose client dropped the connection mid-body as that, not as an unhandled error', async () => {
    const { app, lines } = buildApp();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as AddressInfo;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/upload/piped', headers: { ...auth(), 'content-length': 100_000 } });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(1000));
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    await new Promise((r) => setTimeout(r, 200));
    server.close();

    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(lines.some((l) => l.msg === 'client went away before the request was read')).toBe(true);
  });
});

describe('createServiceApp: request ids', () => {
  it('echoes the caller’s X-Request-Id', async () => {
    const res = await request(buildApp().app).get('/health').set('X-Request-Id', 'gateway-abc.123');

    expect(res.headers['x-request-id']).toBe('gateway-abc.123');
  });

  it('assigns a request id when none was sent, or when the one sent is unusable', async () => {
    const { app } = buildApp();
    const none = await request(app).get('/health');
    const unusable = await request(app).get('/health').set('X-Request-Id', 'has spaces and <tags>');

    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(unusable.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets the request id on error answers too', async () => {
    const res = await request(buildApp().app).get('/nothing').set('X-Request-Id', 'req-401');

    expect(res.status).toBe(401);
    expect(res.headers['x-request-id']).toBe('req-401');
  });
});

describe('createServiceApp: composition', () => {
  it('returns an express app that does not listen by itself', () => {
    const { app } = buildApp();

    expect(typeof app.listen).toBe('function');
    expect(Object.getPrototypeOf(app)).toBe(Object.getPrototypeOf(express()));
  });
});
