import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import { createServiceApp, listen, type RunningServer, type ServiceName } from '@trove/platform';
import { serviceContext, type ServiceInstance } from '@trove/runtime';
import { gatewayModule } from '../src';
import { bearer, devTenant, startStack, type Stack } from './support';

/**
 * A gateway whose process also runs records, ingestion and mcp: it hands their requests to their apps itself. The
 * apps are built as every service's is (createServiceApp: its identity check, its JSON parser, its error handler).
 */
let stack: Stack;
let gateway: ServiceInstance;
let server: RunningServer;
let ingestionStarted = true;
let records: Express;
/** Resolves when the upload route has read its first chunk. */
let firstChunk: () => void = () => undefined;
let sendSecondEvent: () => void = () => undefined;

function serviceApp(name: ServiceName, routes: Parameters<typeof createServiceApp>[0]['routes']): Express {
  return createServiceApp({ name, logger: stack.gateway.ctx.logger, internalTokenSecret: stack.gateway.ctx.config.INTERNAL_TOKEN_SECRET, routes });
}

beforeAll(async () => {
  stack = await startStack();
  records = serviceApp('records', (router) => {
    router.post('/records', (req, res) => {
      res.status(201).json({
        url: req.originalUrl === req.url ? req.url : `${req.url} (original ${req.originalUrl})`,
        identity: req.identity,
        body: req.body as unknown,
        authorization: req.headers.authorization ?? null,
        tenantHeader: req.headers['x-tenant-id'] ?? null,
        requestId: req.id,
      });
    });
    router.get('/records/boom', () => {
      throw new Error('a bug in the service');
    });
    router.get('/records/busy', (_req, res) => {
      res.status(503).json({ detail: 'busy' });
    });
  });
  const ingestion = serviceApp('ingestion', (router) => {
    router.post('/upload/:collection/:type/stream', async (req, res) => {
      let bytes = 0;
      for await (const chunk of req) {
        if (bytes === 0) firstChunk();
        bytes += (chunk as Buffer).length;
      }
      res.status(201).json({ bytes });
    });
  });
  const mcp = serviceApp('mcp', (router) => {
    router.get('/mcp/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      sendSecondEvent = () => res.end('data: second\n\n');
    });
  });
  const apps: Partial<Record<ServiceName, Express>> = { records, ingestion, mcp };
  const local = (service: ServiceName) => (service in apps ? () => (service !== 'ingestion' || ingestionStarted ? apps[service] : undefined) : undefined);
  const { config, logger } = stack.gateway.ctx;
  gateway = await gatewayModule.init(serviceContext('gateway', { config, logger, database: stack.gateway.database, bus: stack.gateway.bus, local }));
  server = await listen(gateway.app, 0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close(1_000);
  await gateway?.stop?.();
  await stack?.stop();
});

it("hands the request to the service's app: the matched path and query, no caller credentials, the identity its own check verified, the body its parser read", async () => {
  const tenant = randomUUID();
  const key = (await request(gateway.app).post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'k', scopes: ['records'] })).body.key as string;
  const res = await request(gateway.app)
    .post('/api/v1/records?collection=bolts')
    .set(bearer(key))
    .set('X-Tenant-Id', randomUUID())
    .set('X-Request-Id', 'req-7')
    .send({ name: 'M8 bolt' });

  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    url: '/records?collection=bolts (original /api/v1/records?collection=bolts)',
    identity: { tenantId: tenant, principal: expect.stringMatching(/^key:/), scopes: ['records'], plan: expect.any(String) },
    body: { name: 'M8 bolt' },
    authorization: null,
    tenantHeader: null,
    requestId: 'req-7',
  });
  // Never a service's own call: no caller, so no /internal route would answer it.
  expect(res.body.identity.caller).toBeUndefined();
  expect(res.headers['x-request-id']).toBe('req-7');
});

it("counts the request in the gateway's metrics under its route-table entry and in the service's under its own route", async () => {
  await request(gateway.app).post('/api/v1/records').set(devTenant(randomUUID())).send({ name: 'counted' });
  expect((await request(gateway.app).get('/metrics')).text).toMatch(/http_requests_total\{[^}]*route="\/api\/v1\/records\/\*"[^}]*status="201"/);
  expect((await request(records).get('/metrics')).text).toMatch(/http_requests_total\{[^}]*route="\/records"[^}]*status="201"/);
});

it("answers with the service's own error handler when the service throws, and 503 counts as the service's answer", async () => {
  const boom = await request(gateway.app).get('/api/v1/records/boom').set(devTenant(randomUUID()));
  expect(boom.status).toBe(500);
  expect(boom.body).toEqual({ detail: expect.any(String) });
  const busy = await request(gateway.app).get('/api/v1/records/busy').set(devTenant(randomUUID()));
  expect(busy.status).toBe(503);
  expect(busy.body).toEqual({ detail: 'busy' });
});

it('answers 503 naming a service of the process that is not running yet', async () => {
  ingestionStarted = false;
  try {
    const res = await request(gateway.app).post('/api/v1/upload/parts/bolt/stream').set(devTenant(randomUUID())).send('{}');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'The ingestion service is unavailable; try again shortly' });
  } finally {
    ingestionStarted = true;
  }
});

it('streams an upload into the service as it arrives: the service reads its start before the client sends the rest', async () => {
  const chunk = Buffer.alloc(1 << 20, 'a');
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: server.port,
      method: 'POST',
      path: '/api/v1/upload/parts/bolt/stream',
      headers: { ...devTenant(randomUUID()), 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    // The rest is sent only once the service has read the start: a gateway that buffered the body would wait forever.
    firstChunk = () => {
      firstChunk = () => undefined;
      for (let i = 0; i < 19; i++) req.write(chunk);
      req.end();
    };
    req.write(chunk);
  });

  expect(answer).toEqual({ status: 201, body: JSON.stringify({ bytes: 20 * chunk.length }) });
});

it("passes the service's event stream on as it is written", async () => {
  const tenant = randomUUID();
  const first = await new Promise<{ status: number; type: string | undefined; events: string[]; done: Promise<string[]> }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'GET', path: '/mcp/', headers: devTenant(tenant) });
    req.on('response', (res) => {
      const events: string[] = [];
      const done = new Promise<string[]>((end) => res.on('end', () => end(events)));
      res.on('data', (d: Buffer) => {
        events.push(d.toString());
        if (events.length === 1) resolve({ status: res.statusCode!, type: res.headers['content-type'], events: [...events], done });
      });
    });
    req.on('error', reject);
    req.end();
  });

  expect(first).toMatchObject({ status: 200, type: 'text/event-stream', events: ['data: first\n\n'] });
  sendSecondEvent();
  expect((await first.done).join('')).toBe('data: first\n\ndata: second\n\n');
});
