import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { BILLING_USAGE, usagePeriodOf, type Plan } from '@trove/contracts';
import { startTestService, type TestService } from '@trove/testing';
import { searchModule } from '../src';

/**
 * A stand-in for billing's usage route, the count the month starts from: the real billing service would have to be
 * fed dozens of usage events first, and only this one route of it is asked. Records who was asked.
 */
async function startBilling(): Promise<{ url: string; searches: Map<string, number>; asked: string[]; close(): Promise<void> }> {
  const searches = new Map<string, number>();
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://billing');
    const tenant = url.searchParams.get('tenant_id') ?? '';
    if (url.pathname !== BILLING_USAGE.path) {
      res.writeHead(404).end();
      return;
    }
    asked.push(tenant);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ tenant_id: tenant, period: usagePeriodOf(new Date()), searches: searches.get(tenant) ?? 0, requests: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    searches,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let svc: TestService;
let billing: Awaited<ReturnType<typeof startBilling>>;

beforeAll(async () => {
  billing = await startBilling();
  svc = await startTestService(searchModule, { config: { BILLING_URL: billing.url } });
});
afterAll(async () => {
  await svc?.stop();
  await billing?.close();
});

/** A key's identity on the plan, as the gateway forwards it. */
const key = (s: TestService, tenant: string, plan: Plan) => s.as(tenant, ['search'], undefined, undefined, plan);
const search = (s: TestService, tenant: string, plan: Plan) => request(s.instance.app).post('/search/products').set(key(s, tenant, plan)).send({ query: 'bolt' });

describe('monthly searches', () => {
  it("refuses a free tenant's searches with 402 past 50 in the month, counting from billing's count", async () => {
    const tenant = randomUUID();
    billing.searches.set(tenant, 46);
    const app = () => request(svc.instance.app);
    const portal = svc.as(tenant, ['admin'], `user:${randomUUID()}`, undefined, 'free');

    // A refused request uses up nothing of the month.
    expect((await app().post('/search/products').set(key(svc, tenant, 'free')).send({})).status).toBe(422);
    const answers = [
      await search(svc, tenant, 'free'),
      await app().get('/search/products?q=nut').set(key(svc, tenant, 'free')),
      await app().post('/portal/search/products').set(portal).send({ query: 'bolt' }),
      await search(svc, tenant, 'free'),
      await search(svc, tenant, 'free'),
      await app().get('/search/products?q=nut').set(key(svc, tenant, 'free')),
      await app().post('/portal/search/products').set(portal).send({ query: 'bolt' }),
    ];

    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 402, 402, 402]);
    expect(answers[4]!.body).toEqual({ detail: expect.stringContaining('50') });
    expect(answers[6]!.body).toEqual(answers[4]!.body);
    // Billing was asked once for the tenant's month, not per search.
    expect(billing.asked.filter((t) => t === tenant)).toHaveLength(1);
    // An aggregation is not a search of the month.
    expect((await app().post('/aggregate').set(key(svc, tenant, 'free')).send({ collection: 'products', group_by: 'material' })).status).toBeLessThan(400);
  });

  it('lets a paid tenant search past its month allowance (overage is billed), without asking billing', async () => {
    const tenant = randomUUID();
    billing.searches.set(tenant, 60_000);

    const answers = await Promise.all(Array.from({ length: 5 }, () => search(svc, tenant, 'pro')));

    expect(answers.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(billing.asked).not.toContain(tenant);
  });

  it('counts from 0 when billing cannot answer, and the search is served', async () => {
    const cut = await startTestService(searchModule, { config: { BILLING_URL: `http://127.0.0.1:${await closedPort()}` } });
    try {
      const tenant = randomUUID();
      const answers = [];
      for (let i = 0; i < 51; i++) answers.push(await search(cut, tenant, 'free'));

      expect(answers.slice(0, 50).every((r) => r.status === 200)).toBe(true);
      expect(answers[50]!.status).toBe(402);
    } finally {
      await cut.stop();
    }
  });
});
