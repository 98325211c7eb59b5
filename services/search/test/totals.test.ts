import { randomUUID } from 'node:crypto';
import { PostgresSearchEngine, type IndexDocument } from '@trove/search-engine';
import { startSystem, type System } from './helpers';

/**
 * The totals rule through the search service (docs/behaviour/search.md): exact up to 1,000 matches and possibly
 * estimated above, exact up to 10,000 when the body asks for exact_total. The documents are written straight into the
 * engine: a thousand records through the API would only make the test slow.
 */

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

function bracket(tenant_id: string, i: number): IndexDocument {
  return {
    tenant_id,
    record_id: randomUUID(),
    version: 1,
    collection: 'brackets',
    record_type: 'product',
    generation: 1,
    name: `Bracket ${i}`,
    description: null,
    description_llm: '',
    collection_data: { n: i },
    source_type: 'api',
    status: 'active',
    visibility: 'private',
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

it('counts up to a thousand matches exactly, says when it estimates above, and counts up to ten thousand when asked', async () => {
  const t = sys.tenant();
  const engine = new PostgresSearchEngine(sys.db.database);
  const docs = Array.from({ length: 1_200 }, (_, i) => bracket(t.id, i));
  await engine.apply(docs.map((document) => ({ op: 'upsert' as const, document, active_generation: 1 })));
  await engine.close();

  for (const body of [{ filters: { n_min: 0 } }, { query: 'a bracket for the shelf' }]) {
    const estimated = await t.search.post('/search/brackets', body);
    expect(estimated.status).toBe(200);
    expect(estimated.body.metadata.total_is_estimate).toBe(true);
    expect(estimated.body.metadata.total_estimate).toBeGreaterThanOrEqual(1_080);
    expect(estimated.body.metadata.total_estimate).toBeLessThanOrEqual(1_200);

    const exact = await t.search.post('/search/brackets', { ...body, exact_total: true });
    expect(exact.status).toBe(200);
    expect(exact.body.metadata).toMatchObject({ total_estimate: 1_200, total_is_estimate: false });

    const few = await t.search.post('/search/brackets', { ...body, filters: { n_max: 499 } });
    expect(few.body.metadata).toMatchObject({ total_estimate: 500, total_is_estimate: false });
  }
});

it('answers 422 naming exact_total when it is not a boolean', async () => {
  const t = sys.tenant();
  const res = await t.search.post('/search/brackets', { query: 'bracket', exact_total: 'yes' });
  expect(res.status).toBe(422);
  expect(res.body.detail[0].loc).toEqual(['body', 'exact_total']);
});
