import { randomUUID } from 'node:crypto';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

const trove = useTrove();
const api = trove.api;
let admin: string;
let recordsOnly: string;

beforeAll(async () => {
  const tenant = randomUUID();
  admin = await trove.keyFor(tenant, ['admin']);
  recordsOnly = await trove.keyFor(tenant, ['records']);
});

const search = (body: unknown, key = admin) => api('POST', '/api/v1/search/catalogue', { headers: bearer(key), body });

describe('search through the gateway', () => {
  it('finds a record created with POST /records in the very next search', async () => {
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(admin),
      body: { name: 'Hex nut M12 galvanised', collection: 'catalogue', record_type: 'product', collection_data: { ean: '4006381333931', price: 0.2 } },
    });
    expect(created.status).toBe(201);
    expect(created.body.indexing_status).toBe('indexed');
    const res = await search({ query: 'hex nut' });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { record_id: string }) => r.record_id)).toEqual([created.body.id]);

    const byEan = await search({ query: '4006381333931' });
    expect(byEan.body.results[0]).toMatchObject({ record_id: created.body.id, score: 1 });
    expect(byEan.body.metadata.search_mode).toBe('identifier');
  });

  it('makes batch-uploaded records searchable and aggregatable', async () => {
    const records = Array.from({ length: 30 }, (_, i) => ({ name: `Threaded rod ${i}`, collection_data: { length: i, material: i % 2 ? 'steel' : 'brass' } }));
    const upload = await api('POST', '/api/v1/upload/catalogue/product/batch', { headers: bearer(admin), body: { records } });
    expect(upload.status).toBe(201);
    const deadline = Date.now() + 20_000;
    let total = 0;
    while (Date.now() < deadline && total < 30) {
      total = (await search({ query: 'threaded rod', limit: 1 })).body.metadata.total_estimate;
      if (total < 30) await new Promise((r) => setTimeout(r, 200));
    }
    expect(total).toBe(30);
    const agg = await api('POST', '/api/v1/aggregate', { headers: bearer(admin), body: { collection: 'catalogue', filters: { length_min: 0 }, group_by: 'material', stats: ['length'] } });
    expect(agg.status).toBe(200);
    expect(agg.body).toEqual({
      total: 30,
      groups: [
        { value: 'brass', count: 15 },
        { value: 'steel', count: 15 },
      ],
      stats: { length: { count: 30, min: 0, max: 29, avg: 14.5 } },
    });
  });

  it('answers repeated identical searches from the cache', async () => {
    await search({ query: 'threaded', limit: 5 });
    const again = await search({ query: 'threaded', limit: 5 });
    expect(again.body.metadata.cache_hit).toBe(true);
  });

  it('asks for a key with the search scope and validates the body', async () => {
    expect((await api('POST', '/api/v1/search/catalogue', { body: { query: 'x' } })).status).toBe(401);
    expect((await search({ query: 'x' }, recordsOnly)).status).toBe(403);
    const bad = await search({ query: 'x', limit: 500 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'limit']);
  });

  it('serves the search health report without a key', async () => {
    const res = await api('GET', '/api/v1/health/search');
    expect(res.status).toBe(200);
    expect(res.body.latency_ms.p50).toEqual(expect.any(Number));
  });
});
