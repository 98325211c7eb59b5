import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { IDENTITY_HEADER, createServiceApp, verifyIdentity, type Identity } from '@trove/platform';
import { startTestService, type TestService } from '@trove/testing';
import { serviceContext, type ServiceModule } from './module';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const IDENTITY: Identity = { tenantId: 'tenant-1', principal: 'key:1', scopes: ['search'] };

/** A module that does nothing itself; the test uses the context it was given. */
const ingestionLike: ServiceModule = { name: 'ingestion', dependsOn: [], init: async () => ({ app: express() }) };

function tokenClaims(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number; exp: number };
}

describe("a module context's client", () => {
  let upstream: Server;
  let received: IncomingMessage[];
  let svc: TestService;

  beforeAll(async () => {
    received = [];
    // Answers every path but /slow, which gets no answer.
    upstream = createServer((req, res) => {
      received.push(req);
      if (req.url === '/slow') return;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    svc = await startTestService(ingestionLike, {
      config: { RECORDS_URL: url, INTERNAL_TOKEN_SECRET: SECRET, INTERNAL_TOKEN_TTL_SECONDS: '45', UPSTREAM_TIMEOUT_MS: '300' },
    });
  });
  afterAll(async () => {
    await svc?.stop();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it("calls the named service's URL signed as the module's service, with the configured secret and token lifetime", async () => {
    const client = svc.ctx.client('records');
    try {
      const res = await client.request<{ ok: boolean }>({ method: 'GET', path: '/fast', identity: IDENTITY });

      expect(res).toEqual({ status: 200, body: { ok: true } });
      const token = received.at(-1)!.headers[IDENTITY_HEADER] as string;
      expect(verifyIdentity(token, SECRET)).toEqual({ ...IDENTITY, plan: undefined, caller: 'ingestion' });
      const { iat, exp } = tokenClaims(token);
      expect(exp - iat).toBe(45);
    } finally {
      client.shutdown();
    }
  });

  it('gives up on a call after UPSTREAM_TIMEOUT_MS with a 503 naming the service', async () => {
    const client = svc.ctx.client('records');
    try {
      const started = Date.now();
      await expect(client.request({ method: 'GET', path: '/slow', identity: IDENTITY })).rejects.toMatchObject({
        status: 503,
        message: expect.stringContaining('records'),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      client.shutdown();
    }
  });
});

describe("a module context's client to a service of the same process", () => {
  it('reaches the app local() names in process, signed as the module, and every other service at its URL', async () => {
    const svc = await startTestService(ingestionLike, { config: { INTERNAL_TOKEN_SECRET: SECRET, SEARCH_URL: 'http://127.0.0.1:9' } });
    const records = createServiceApp({
      name: 'records',
      logger: svc.ctx.logger,
      internalTokenSecret: SECRET,
      routes: (router) => router.get('/who', (req, res) => res.json(req.identity)),
    });
    const ctx = serviceContext('ingestion', { config: svc.ctx.config, logger: svc.ctx.logger, database: svc.database, bus: svc.bus, local: (s) => (s === 'records' ? () => records : undefined) });
    const inProcess = ctx.client('records');
    const overHttp = ctx.client('search');
    try {
      expect(await inProcess.request({ method: 'GET', path: '/who', identity: IDENTITY })).toEqual({ status: 200, body: { ...IDENTITY, caller: 'ingestion' } });
      // Nothing listens at SEARCH_URL: the call went over HTTP and found no one.
      await expect(overHttp.request({ method: 'GET', path: '/who', identity: IDENTITY })).rejects.toMatchObject({ status: 503, message: expect.stringContaining('search') });
    } finally {
      inProcess.shutdown();
      overHttp.shutdown();
      await svc.stop();
    }
  });
});
