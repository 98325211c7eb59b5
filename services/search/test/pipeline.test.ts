import { randomUUID } from 'node:crypto';
import { TOPICS, type RecordDto } from '@trove/contracts';
import { eventually } from '@trove/testing';
import { product, startSystem, type System } from './helpers';

let sys: System;
let t: ReturnType<System['tenant']>;

beforeAll(async () => {
  sys = await startSystem({ INDEXING_WAIT_MS: '4000' });
  t = sys.tenant();
});
afterAll(() => sys.stop());

const names = (res: { body: { results: Array<{ name: string }> } }) => res.body.results.map((r) => r.name);

function staged(name: string, generation: number, version = 1): RecordDto {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    tenant_id: t.id,
    name,
    description: null,
    description_llm: name,
    collection: 'blue-green',
    record_type: 'product',
    collection_data: {},
    indexing_status: 'pending',
    status: 'active',
    visibility: 'private',
    generation,
    source_name: null,
    source_id: null,
    source_url: null,
    source_type: 'file_upload',
    version,
    created_at: now,
    updated_at: now,
  };
}

describe('generations', () => {
  it('never returns a staging generation, and serves it only once it is swapped in', async () => {
    const live = staged('Live generation bolt', 1);
    const staging = staged('Staging generation bolt', 2);
    await sys.records.bus.publish([
      { topic: TOPICS.recordsChanged, key: live.id, payload: { kind: 'upserted', tenant_id: t.id, record_id: live.id, version: 1, record: live, active_generation: 1 } },
      { topic: TOPICS.recordsChanged, key: staging.id, payload: { kind: 'upserted', tenant_id: t.id, record_id: staging.id, version: 1, record: staging, active_generation: 1 } },
    ]);
    const find = () => t.search.post('/search/blue-green', { query: 'generation bolt' });
    await eventually(async () => expect(names(await find())).toEqual(['Live generation bolt']));

    await sys.records.bus.publish([
      {
        topic: TOPICS.recordsChanged,
        key: 'blue-green',
        payload: { kind: 'generation_swapped', tenant_id: t.id, record_id: staging.id, version: 1, collection: 'blue-green', old_generation: 1, new_generation: 2 },
      },
    ]);
    await eventually(async () => expect(names(await find())).toEqual(['Staging generation bolt']));
  });
});

describe('outages and restarts', () => {
  it('accepts writes as pending while search is down and indexes them when it comes back', async () => {
    await sys.restartSearch({ start: false });
    const res = await t.records.post('/records', product({ collection: 'outage', name: 'Written while search was down' }));
    expect(res.status).toBe(201);
    expect(res.body.indexing_status).toBe('pending');

    await sys.restartSearch();
    await eventually(async () => expect((await t.records.get(`/records/${res.body.id}`)).body.indexing_status).toBe('indexed'));
    expect(names(await t.search.post('/search/outage', { query: 'search was down' }))).toEqual(['Written while search was down']);
  });

  it('neither loses nor duplicates anything across a restart', async () => {
    for (let i = 0; i < 5; i++) await t.records.post('/records', product({ collection: 'restart', name: `Restart rivet ${i}` }));
    await sys.restartSearch();
    await t.records.post('/records', product({ collection: 'restart', name: 'Restart rivet 5' }));
    const res = await t.search.post('/search/restart', { query: 'restart rivet', limit: 100 });
    expect(names(res).sort()).toEqual(['Restart rivet 0', 'Restart rivet 1', 'Restart rivet 2', 'Restart rivet 3', 'Restart rivet 4', 'Restart rivet 5']);
    expect(res.body.metadata.total_estimate).toBe(6);
  });
});

describe('re-indexing', () => {
  it('runs POST /admin/reindex through the pipeline back to indexed', async () => {
    const { id } = (await t.records.post('/records', product({ collection: 'reindex', name: 'Reindexed anchor' }))).body;
    const res = await t.admin.post('/admin/reindex/reindex');
    expect(res.body).toMatchObject({ collection: 'reindex', records_reset: 1 });
    await eventually(async () => expect((await t.records.get(`/records/${id}`)).body).toMatchObject({ version: 2, indexing_status: 'indexed' }));
    expect(names(await t.search.post('/search/reindex', { query: 'anchor' }))).toEqual(['Reindexed anchor']);

    await t.admin.post(`/admin/reindex/record/${id}`);
    await eventually(async () => expect((await t.records.get(`/records/${id}`)).body).toMatchObject({ version: 3, indexing_status: 'indexed' }));
  });
});
