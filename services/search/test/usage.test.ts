import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PUBLIC_SEARCH, TOPICS, usageEvent, usagePeriodOf, type UsageEvent } from '@trove/contracts';
import { collectEvents, eventually, startTestService, type CollectedEvents, type TestService } from '@trove/testing';
import { searchModule } from '../src';

let svc: TestService;
let collected: CollectedEvents<UsageEvent>;

beforeAll(async () => {
  svc = await startTestService(searchModule);
  collected = await collectEvents(svc.bus, TOPICS.usageEvents, (p) => usageEvent.parse(p));
});
afterAll(async () => {
  await collected.stop();
  await svc.stop();
});

const searchesOf = (tenant: string) => collected.events.filter((u): u is Extract<UsageEvent, { kind: 'searches' }> => u.kind === 'searches' && u.tenant_id === tenant);
const counted = (tenant: string) => searchesOf(tenant).reduce((n, u) => n + u.count, 0);

describe('search usage', () => {
  it("publishes a tenant's private searches as counts per period, not one event per search", async () => {
    const tenant = randomUUID();
    const other = randomUUID();
    const as = svc.as(tenant, ['search']);
    for (let i = 0; i < 4; i++) {
      // The same request again is a cache hit, and still a search.
      expect((await request(svc.instance.app).post('/search/fasteners').set(as).send({ query: 'bolt' })).status).toBe(200);
    }
    expect((await request(svc.instance.app).get('/search/fasteners?q=nut').set(as)).status).toBe(200);
    expect((await request(svc.instance.app).post('/search/other').set(svc.as(other, ['search'])).send({ query: 'bolt' })).status).toBe(200);
    // Neither a refused search, an aggregation nor a public (Open) search counts.
    expect((await request(svc.instance.app).post('/search/fasteners').set(as).send({})).status).toBe(422);
    expect((await request(svc.instance.app).post('/aggregate').set(as).send({ collection: 'fasteners', group_by: 'material' })).status).toBeLessThan(500);
    const open = svc.as(tenant, [], 'service:open', 'open');
    expect((await request(svc.instance.app).post(PUBLIC_SEARCH.path).set(open).send({ query: 'bolt' })).status).toBe(200);

    await eventually(async () => expect(counted(tenant)).toBe(5));
    await eventually(async () => expect(counted(other)).toBe(1));
    await new Promise((r) => setTimeout(r, 300));
    expect(counted(tenant)).toBe(5);
    const facts = searchesOf(tenant);
    expect(facts.length).toBeLessThan(5);
    expect(facts[0]).toEqual({ kind: 'searches', event_id: expect.any(String), tenant_id: tenant, period: usagePeriodOf(new Date()), count: expect.any(Number), at: expect.any(String) });
    expect(new Set(facts.map((f) => f.event_id)).size).toBe(facts.length);
  });
});
