import request from 'supertest';
import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { eventually } from '@trove/testing';
import { holdEngine, startSystem, type System } from './helpers';

jest.setTimeout(60_000);

/**
 * Fair shares of the engine (docs/behaviour/fair-shares.md): with the response cache off, one tenant flooding search waits in
 * its own queue, and another tenant's search is served within a turn, not behind the flood.
 */

let sys: System;
let a: ReturnType<System['tenant']>;
let b: ReturnType<System['tenant']>;

async function load(tenant: string, n: number): Promise<void> {
  const records = Array.from({ length: n }, (_, i) => ({ name: `Fair bolt ${i} steel`, collection_data: { size: i % 40, grade: i % 3 === 0 ? '8.8' : '10.9' } }));
  const res = await request(sys.records.instance.app)
    .post(RECORDS_BULK_UPSERT.path)
    .set(sys.records.as(tenant, ['upload'], undefined, 'ingestion'))
    .send({ collection: 'fair', record_type: 'bolt', source_type: 'api', records });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  sys = await startSystem({ SEARCH_CACHE_TTL_MS: '0', SCHEDULER_SEARCH_CONCURRENCY: '2', SCHEDULER_QUEUE_PER_TENANT: '30' });
  a = sys.tenant();
  b = sys.tenant();
  await load(a.id, 1000);
  await load(b.id, 1000);
  for (const t of [a, b]) {
    await eventually(async () => expect((await t.search.post('/search/fair', { query: 'fair bolt', limit: 1 })).body.metadata.total_estimate).toBe(1000));
  }
});
afterAll(() => sys.stop());

const gauge = async (name: string) => {
  const res = await request(sys.search.instance.app).get('/metrics').set(sys.search.as(a.id, []));
  return Number(new RegExp(`^${name}\\{[^}]*scheduler="search"[^}]*\\} (\\d+)`, 'm').exec(res.text)?.[1] ?? 0);
};

it("serves another tenant within a turn while one tenant floods, and refuses the flood past its queue with Retry-After", async () => {
  // The engine is held while the requests arrive, so what waits and what runs is the scheduler's doing alone.
  const engine = await holdEngine(sys, 'access exclusive');
  const order: string[] = [];
  const flood = Array.from({ length: 40 }, (_, i) =>
    a.search.post('/search/fair', { query: `steel bolt ${i}`, limit: 20, offset: i % 5 }).then((res) => {
      order.push(res.status === 200 ? 'A' : `A${res.status}`);
      return res;
    }),
  );
  try {
    // One of A's runs (two slots, one kept for others), at most thirty wait (its queue's bound), the rest are refused:
    // nine, or ten when all forty arrived before the first one started.
    const refusals = () => order.filter((o) => o === 'A429').length;
    await eventually(async () => expect(refusals() + (await gauge('trove_scheduler_queued')) + (await gauge('trove_scheduler_running'))).toBe(40));
    expect(await gauge('trove_scheduler_running')).toBe(1);
    expect(await gauge('trove_scheduler_queued')).toBeLessThanOrEqual(30);
    expect(refusals()).toBeGreaterThanOrEqual(9);
    const waitingBefore = await gauge('trove_scheduler_queued');
    // then() sends it (a supertest request goes out only when awaited or then-ed).
    const mine = b.search.post('/search/fair', { query: 'fair bolt 7' }).then((res) => res);
    // B took the slot kept free at once, ahead of every one of A's waiting searches: while the engine is held none of
    // A's can have finished, so B runs beside A's one running search and all of A's others still wait.
    await eventually(async () => expect(await gauge('trove_scheduler_running')).toBe(2));
    expect(await gauge('trove_scheduler_queued')).toBe(waitingBefore);
    engine.release();
    await engine.released;
    const answers = await Promise.all(flood);
    expect((await mine).status).toBe(200);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(40 - refusals());

    const refused = answers.filter((r) => r.status === 429);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(r.body.detail).toMatch(/^Too many of your search requests are waiting\. Try again in \d+ seconds\.$/);
    }
  } finally {
    engine.release();
    await engine.released.catch(() => undefined);
    await Promise.allSettled(flood);
  }
});
