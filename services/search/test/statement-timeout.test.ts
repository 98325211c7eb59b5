import { eventually } from '@trove/testing';
import { holdEngine, product, startSystem, type System } from './helpers';

/**
 * Bounded time for every search statement (docs/behaviour/fair-shares.md): on a PostgreSQL server a search or
 * aggregation whose statement outlives SEARCH_STATEMENT_TIMEOUT_MS is cancelled and answered 503 saying so, instead
 * of holding a connection for as long as it would take. The engine is held by another transaction's lock, as a long
 * write or a costly query would hold it.
 */

let sys: System;
let t: ReturnType<System['tenant']>;

beforeAll(async () => {
  sys = await startSystem({ SEARCH_STATEMENT_TIMEOUT_MS: '300', SEARCH_CACHE_TTL_MS: '0' });
  t = sys.tenant();
  expect((await t.records.post('/records', product({ collection: 'bounded', name: 'Bounded hex bolt' }))).status).toBe(201);
  await eventually(async () => expect((await t.search.post('/search/bounded', { query: 'hex bolt' })).body.results).toHaveLength(1));
});
afterAll(() => sys.stop());

it('answers 503 when a search or an aggregation outlives the statement timeout, and searches again once the engine is free', async () => {
  const engine = await holdEngine(sys, 'access exclusive');
  try {
    const started = Date.now();
    const search = await t.search.post('/search/bounded', { query: 'hex bolt' });
    expect(search.status).toBe(503);
    expect(search.body.detail).toMatch(/^The search took longer than 0\.3 s and was stopped; narrow the query or add filters/);
    const aggregate = await t.search.post('/aggregate', { collection: 'bounded', group_by: 'material' });
    expect(aggregate.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    engine.release();
    await engine.released;
  }
  const again = await t.search.post('/search/bounded', { query: 'hex bolt' });
  expect(again.status).toBe(200);
  expect(again.body.results.map((r: { name: string }) => r.name)).toEqual(['Bounded hex bolt']);
});
