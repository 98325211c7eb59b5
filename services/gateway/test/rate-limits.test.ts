import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { TOPICS, usageEvent, usagePeriodOf, type Plan, type UsageEvent } from '@trove/contracts';
import { sql } from '@trove/db';
import { collectEvents, type CollectedEvents, type TestService } from '@trove/testing';
import { bearer, devTenant, startRecordingUpstream, startStack, type Stack } from './support';

let stack: Stack;
let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
let usage: CollectedEvents<UsageEvent>;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  stack = await startStack({ SEARCH_URL: upstream.url, RECORDS_URL: upstream.url });
  usage = await collectEvents(stack.gateway.bus, TOPICS.usageEvents, (p) => usageEvent.parse(p));
});
afterAll(async () => {
  await usage?.stop();
  await stack?.stop();
  await upstream?.close();
});

/** A tenant on the plan with an admin key (issued in development with X-Tenant-Id, then the plan set as billing would). */
async function tenantOn(plan: Plan, gw: TestService = stack.gateway): Promise<{ tenant: string; key: string }> {
  const tenant = randomUUID();
  const res = await request(gw.instance.app).post('/api/v1/auth/keys').set(devTenant(tenant)).send({ name: 'admin', scopes: ['admin'] });
  expect(res.status).toBe(201);
  await sql`update auth.tenants set plan = ${plan} where id = ${tenant}`.execute(stack.auth.database.db);
  return { tenant, key: res.body.key };
}

const gateway = (gw: TestService = stack.gateway) => request(gw.instance.app);
const remaining = (res: request.Response) => Number(res.headers['x-ratelimit-remaining']);
const search = (key: string, gw?: TestService) => gateway(gw).post('/api/v1/search/products').set(bearer(key)).send({ query: 'bolt' });

describe('per-tenant rate limits', () => {
  it("puts the tenant's allowance on every key-authenticated answer, successes and errors alike", async () => {
    const { key } = await tenantOn('free');
    const before = Math.floor(Date.now() / 1000);

    const ok = await gateway().get('/api/v1/auth/keys').set(bearer(key));
    const missing = await gateway().get(`/api/v1/auth/keys/${randomUUID()}`).set(bearer(key));
    const invalid = await gateway().post('/api/v1/records').set(bearer(key)).set('content-type', 'application/json').send('{');

    expect(ok.status).toBe(200);
    expect(missing.status).toBe(404);
    expect(invalid.status).toBeLessThan(500);
    for (const res of [ok, missing, invalid]) {
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(before + 59);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    }
    expect(remaining(missing)).toBe(remaining(ok) - 1);
    expect(remaining(invalid)).toBe(remaining(ok) - 2);
    // A request that never authenticated belongs to no tenant.
    const anonymous = await gateway().get('/api/v1/auth/keys');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('answers 429 with Retry-After past the plan allowance, while another tenant is unaffected at the same moment', async () => {
    const flooding = await tenantOn('free');
    const other = await tenantOn('free');
    const first = await gateway().get('/api/v1/auth/keys').set(bearer(flooding.key));
    const left = remaining(first);
    expect(left).toBeGreaterThan(50);

    const burst = await Promise.all(Array.from({ length: left + 3 }, () => gateway().get('/api/v1/auth/keys').set(bearer(flooding.key))));
    const otherAnswer = await gateway().get('/api/v1/auth/keys').set(bearer(other.key));

    expect(burst.filter((r) => r.status === 200)).toHaveLength(left);
    const refused = burst.filter((r) => r.status === 429);
    expect(refused).toHaveLength(3);
    for (const res of refused) {
      const seconds = Number(res.headers['retry-after']);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(res.body).toEqual({ detail: `Rate limit exceeded. Try again in ${seconds} seconds.` });
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    }
    expect(otherAnswer.status).toBe(200);
    expect(otherAnswer.headers['x-ratelimit-limit']).toBe('60');
    expect(remaining(otherAnswer)).toBeGreaterThan(50);
  });

  it('holds back the refusals of a tenant that keeps calling past twice its allowance, and answers others at once', async () => {
    const flooding = await tenantOn('free');
    const other = await tenantOn('free');
    // The rest of the allowance of 60, then 60 refusals answered at once: 120 calls in the window.
    const left = remaining(await gateway().get('/api/v1/auth/keys').set(bearer(flooding.key)));
    const calls = Array.from({ length: left + 60 }, () => gateway().get('/api/v1/auth/keys').set(bearer(flooding.key)));
    const answered = await Promise.all(calls);
    expect(answered.filter((r) => r.status === 429)).toHaveLength(60);
    const timed = async (key: string) => {
      const started = performance.now();
      const res = await gateway().get('/api/v1/auth/keys').set(bearer(key));
      return { status: res.status, ms: performance.now() - started, retryAfter: Number(res.headers['retry-after']) };
    };
    const [held, meanwhile] = await Promise.all([timed(flooding.key), timed(other.key)]);
    expect(held.status).toBe(429);
    expect(held.ms).toBeGreaterThanOrEqual(900);
    expect(held.retryAfter).toBeGreaterThanOrEqual(1);
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.ms).toBeLessThan(held.ms);
  });

  it('counts search calls against the search allowance too, and reports it on search routes', async () => {
    const { key } = await tenantOn('free');
    const calls = remaining(await gateway().get('/api/v1/auth/keys').set(bearer(key)));

    const searches = [];
    for (let i = 0; i < 20; i++) searches.push(await search(key));
    const aggregate = await gateway().post('/api/v1/aggregate').set(bearer(key)).send({ group_by: 'material' });
    const after = await gateway().get('/api/v1/auth/keys').set(bearer(key));

    expect(searches.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(searches[0]!.headers['x-ratelimit-limit']).toBe('20');
    expect(searches.map(remaining)).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
    // The aggregation is a search call over the allowance.
    expect(aggregate.status).toBe(429);
    expect(aggregate.headers['x-ratelimit-limit']).toBe('20');
    expect(aggregate.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    // The other calls still pass on the API allowance, which every search call spent from as well.
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-limit']).toBe('60');
    expect(remaining(after)).toBe(calls - 22);
  });

  it("counts a portal user's requests against the same tenant allowance as its keys", async () => {
    const signup = await gateway()
      .post('/api/v1/portal/auth/signup')
      .send({ email: `limits-${randomUUID()}@example.com`, password: 'a long enough password' });
    expect(signup.status).toBe(201);
    const tenant = signup.body.account.tenant_id as string;
    await sql`update auth.tenants set plan = 'free' where id = ${tenant}`.execute(stack.auth.database.db);
    const login = await gateway().post('/api/v1/portal/auth/login').send({ email: signup.body.account.email, password: 'a long enough password' });
    const portal = bearer(login.body.token);
    const created = await gateway().post('/api/v1/portal/keys').set(portal).send({ name: 'program', scopes: ['admin'] });
    expect(created.status).toBe(201);

    const byKey = await gateway().get('/api/v1/auth/keys').set(bearer(created.body.key));
    const byPortal = await gateway().get('/api/v1/portal/account').set(portal);

    expect(byKey.status).toBe(200);
    expect(byPortal.status).toBe(200);
    expect(created.headers['x-ratelimit-limit']).toBe('60');
    expect(remaining(byKey)).toBe(remaining(created) - 1);
    expect(remaining(byPortal)).toBe(remaining(created) - 2);
  });

  it('lets an enterprise tenant (the self-hosted default) far past the free allowance', async () => {
    const { key } = await tenantOn('enterprise');
    const answers = await Promise.all(Array.from({ length: 80 }, () => search(key)));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('10000');
  });

  it('neither counts nor refuses with TENANT_RATE_LIMITS=false, and sets no rate-limit headers', async () => {
    const unlimited = await stack.startGateway({ TENANT_RATE_LIMITS: 'false' });
    const { key } = await tenantOn('free', unlimited);
    const answers = await Promise.all(Array.from({ length: 30 }, () => search(key, unlimited)));
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(answers.every((r) => r.headers['x-ratelimit-limit'] === undefined)).toBe(true);
  });
});

describe('usage', () => {
  it("publishes a tenant's key-authenticated calls as requests counts per month, not one event per call", async () => {
    const { tenant, key } = await tenantOn('pro');
    for (let i = 0; i < 4; i++) expect((await gateway().get('/api/v1/auth/keys').set(bearer(key))).status).toBe(200);

    const requestsOf = () => usage.events.filter((u): u is Extract<UsageEvent, { kind: 'requests' }> => u.kind === 'requests' && u.tenant_id === tenant);
    const counted = () => requestsOf().reduce((n, u) => n + u.count, 0);
    // The key's own issue (X-Tenant-Id in development) is one of the tenant's calls.
    const until = Date.now() + 15_000;
    while (counted() < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));

    expect(counted()).toBe(5);
    expect(requestsOf().length).toBeLessThan(5);
    expect(requestsOf()[0]).toEqual({ kind: 'requests', event_id: expect.any(String), tenant_id: tenant, period: usagePeriodOf(new Date()), count: expect.any(Number), at: expect.any(String) });
  });
});

/** The cache on Redis, for the outage; skipped, and saying so, without a Redis server. */
const REDIS_URL = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisReachable =
  spawnSync(process.execPath, ['-e', `const u=new URL(${JSON.stringify(REDIS_URL)});const s=require('net').connect(+u.port||6379,u.hostname,()=>{s.write('PING\\r\\n')});s.on('data',d=>process.exit(String(d).startsWith('+PONG')?0:1));s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),2000)`], {
    timeout: 5_000,
  }).status === 0;
if (!redisReachable) console.warn(`Gateway counter outage run skipped: ${REDIS_URL} is unreachable`);

/** Forwards to Redis until cut. */
async function cuttableRedis(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const remote = net.connect(Number(target.port) || 6379, target.hostname);
    for (const s of [client, remote]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(remote).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    server.close();
    for (const s of sockets) s.destroy();
  };
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, cut, close: async () => cut() };
}

(redisReachable ? describe : describe.skip)('counters in Redis', () => {
  it('are shared by gateway replicas', async () => {
    const one = await stack.startGateway({ REDIS_URL });
    const two = await stack.startGateway({ REDIS_URL });
    const { key } = await tenantOn('free', one);

    const first = await gateway(one).get('/api/v1/auth/keys').set(bearer(key));
    const second = await gateway(two).get('/api/v1/auth/keys').set(bearer(key));

    expect(remaining(second)).toBe(remaining(first) - 1);
  });

  it('let requests through without the headers, never a 500, while the store is out', async () => {
    const redis = await cuttableRedis();
    const gw = await stack.startGateway({ REDIS_URL: redis.url });
    const { key } = await tenantOn('free', gw);
    expect((await gateway(gw).get('/api/v1/auth/keys').set(bearer(key))).headers['x-ratelimit-limit']).toBe('60');

    redis.cut();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await gateway(gw).get('/api/v1/auth/keys').set(bearer(key)));
    answers.push(await search(key, gw));

    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(answers.every((r) => r.headers['x-ratelimit-limit'] === undefined)).toBe(true);
    await redis.close();
  });
});
