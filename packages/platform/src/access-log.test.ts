import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { ERRORS } from './errors';
import { createServiceApp, metricsOf, setAccessLog } from './http';
import { IDENTITY_HEADER, signIdentity, type Identity } from './identity';
import { requestInProcess } from './in-process';
import { renderMetrics } from './metrics';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const tenant: Identity = { tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['search'] };
const token = signIdentity(tenant, SECRET);

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const accessLines = () => lines.filter((l) => l.msg === 'request completed');
  return { logger, accessLines };
}

function serviceApp(logger: pino.Logger): Express {
  return createServiceApp({
    name: 'records',
    logger,
    internalTokenSecret: SECRET,
    routes: (router) => {
      router.get('/items/:id', (req, res) => void res.json({ id: req.params.id }));
      router.get('/limited', () => {
        throw ERRORS.tooManyRequests('Slow down', { 'Retry-After': '1' }, 'tenant_rate');
      });
      router.get('/quota', () => {
        throw ERRORS.paymentRequired('Plan limit reached', 'plan_records');
      });
    },
  });
}

/** Lets the access log line of a finished request be written (it is written when the response closes). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('access log', () => {
  it('writes one info line per request: method, route pattern, status, duration, request id and tenant; no query string or credentials', async () => {
    const { logger, accessLines } = capture();
    const app = serviceApp(logger);

    await request(app).get('/items/42?api_key=secret-in-query').set(IDENTITY_HEADER, token).set('Authorization', 'Bearer tr_secret').set('X-Request-Id', 'req-1');
    await settled();

    expect(accessLines()).toEqual([
      expect.objectContaining({ level: 30, method: 'GET', route: '/items/:id', status: 200, requestId: 'req-1', tenantId: tenant.tenantId, durationMs: expect.any(Number) }),
    ]);
    const text = JSON.stringify(accessLines());
    expect(text).not.toContain('secret-in-query');
    expect(text).not.toContain('tr_secret');
    expect(text).not.toContain(token);
  });

  it('names the path (without its query string) of a request no route matched, and no tenant without an identity', async () => {
    const { logger, accessLines } = capture();

    await request(serviceApp(logger)).get('/nowhere?token=abc');
    await settled();

    const [line] = accessLines();
    expect(line).toEqual(expect.objectContaining({ route: 'unmatched', path: '/nowhere', status: 401 }));
    expect(line).not.toHaveProperty('tenantId');
    expect(JSON.stringify(line)).not.toContain('abc');
  });

  it('logs the probes and the scrape (/health, /health/ready, /metrics) at debug, not info', async () => {
    const { logger, accessLines } = capture();
    const app = serviceApp(logger);
    for (const path of ['/health', '/health/ready', '/metrics']) expect((await request(app).get(path)).status).toBe(200);
    await settled();
    expect(accessLines().map((l) => [l.level, l.route])).toEqual([
      [20, '/health'],
      [20, '/health/ready'],
      [20, '/metrics'],
    ]);
  });

  it('logs a call over an in-memory connection (another service of the process) at debug, not info', async () => {
    const { logger, accessLines } = capture();
    const app = serviceApp(logger);

    const res = await requestInProcess(app, { method: 'GET', path: '/items/7', headers: { [IDENTITY_HEADER]: token } });
    await settled();

    expect(res.status).toBe(200);
    expect(accessLines()).toEqual([expect.objectContaining({ level: 20, route: '/items/:id', status: 200 })]);
  });

  it('logs a request one app hands to another of the process (the gateway to a service) at info once, then at debug', async () => {
    const outer = capture();
    const inner = capture();
    const service = serviceApp(inner.logger);
    const gateway = createServiceApp({
      name: 'gateway',
      logger: outer.logger,
      rawBodyPaths: [/.*/],
      routes: (router) => {
        router.get('/api/items/:id', (req, res, next) => {
          req.headers[IDENTITY_HEADER] = token;
          req.url = `/items/${req.params.id}`;
          (service as unknown as (...args: unknown[]) => void)(req, res, next);
        });
      },
    });

    expect((await request(gateway).get('/api/items/9')).status).toBe(200);
    await settled();

    expect(outer.accessLines()).toEqual([expect.objectContaining({ level: 30, status: 200 })]);
    expect(inner.accessLines()).toEqual([expect.objectContaining({ level: 20, status: 200 })]);
  });

  it('writes nothing once the process turns it off (ACCESS_LOG=false)', async () => {
    const { logger, accessLines } = capture();
    const app = serviceApp(logger);
    setAccessLog(app, false);

    await request(app).get('/items/1').set(IDENTITY_HEADER, token);
    await settled();

    expect(accessLines()).toEqual([]);
  });
});

describe('limit refusals', () => {
  it('counts each refusal of a limit by its kind as it is answered', async () => {
    const { logger } = capture();
    const app = serviceApp(logger);

    await request(app).get('/limited').set(IDENTITY_HEADER, token).expect(429);
    await request(app).get('/limited').set(IDENTITY_HEADER, token).expect(429);
    await request(app).get('/quota').set(IDENTITY_HEADER, token).expect(402);

    const text = await renderMetrics([metricsOf(app)!.registry]);
    expect(text).toMatch(/^trove_limit_refusals_total\{limit="tenant_rate",service="records"\} 2$/m);
    expect(text).toMatch(/^trove_limit_refusals_total\{limit="plan_records",service="records"\} 1$/m);
  });
});
