import { randomUUID } from 'node:crypto';
import { eventually } from '@trove/testing';
import { portalAuth, signUp } from './support/portal';
import { bearer, useTrove, type UseTroveOptions } from './support/system';

jest.setTimeout(180_000);

/**
 * A client written only against the older vocabulary (docs/behaviour/older-vocabulary.md: entities, older ingest and
 * pipeline, the older portal, older search) works end to end through the gateway, in both shapes the system runs in:
 * one process (`--target=all`, PGlite) and a process per service on PostgreSQL. Nothing here uses a current-vocabulary
 * name, but where the round trip between the vocabularies is the point.
 */

const shapes: Array<{ name: string; options: UseTroveOptions }> = [
  { name: 'embedded (--target=all)', options: {} },
  { name: 'a process per service', options: { apart: true } },
];

describe.each(shapes)('the older vocabulary, $name', (shape) => {
  const { api, keyFor } = useTrove(shape.options);
  let key: Record<string, string>;
  let portal: Record<string, string>;

  beforeAll(async () => {
    const person = await signUp(api);
    portal = portalAuth(person.token);
    const created = await api('POST', '/api/v1/portal/keys', { headers: portal, body: { name: 'older client', scopes: ['records', 'upload', 'search'] } });
    expect(created.status).toBe(201);
    key = bearer(created.body.key);
  });

  const embeddingStatus = async (id: string) => (await api('GET', `/api/v1/entities/${id}`, { headers: key })).body.embedding_status;

  let entityId: string;

  it('creates an entity (201, pending) and watches embedding_status reach completed', async () => {
    const res = await api('POST', '/api/v1/entities', {
      headers: key,
      body: { name: 'Hex bolt M8x40', vertical: 'fasteners', entity_type: 'bolt', vertical_data: { standard: 'DIN 933', material: 'steel', price: 0.12 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ vertical: 'fasteners', entity_type: 'bolt', embedding_status: 'pending', claim_status: 'unclaimed', data_quality_score: 0.8 });
    entityId = res.body.id;
    await eventually(async () => expect(await embeddingStatus(entityId)).toBe('completed'), 30_000);
  });

  it('reads, lists and patches the entity in the older names', async () => {
    const read = await api('GET', `/api/v1/entities/${entityId}`, { headers: key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: entityId, vertical: 'fasteners', entity_type: 'bolt', vertical_data: { standard: 'DIN 933' }, status: 'active' });
    for (const field of ['collection', 'record_type', 'collection_data', 'indexing_status']) expect(read.body).not.toHaveProperty(field);

    const list = await api('GET', '/api/v1/entities?vertical=fasteners&entity_type=bolt&limit=10', { headers: key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [expect.objectContaining({ id: entityId, vertical: 'fasteners', embedding_status: 'completed' })], cursor: null, has_more: false });

    const patched = await api('PATCH', `/api/v1/entities/${entityId}`, { headers: key, body: { vertical_data: { finish: 'zinc' }, claim_status: 'claimed' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ vertical_data: { standard: 'DIN 933', material: 'steel', price: 0.12, finish: 'zinc' }, embedding_status: 'completed', claim_status: 'claimed' });
  });

  it('searches the vertical on the search paths and reads the results in the older names', async () => {
    const post = await api('POST', '/api/v1/search/fasteners', { headers: key, body: { query: 'hex bolt', filters: { material: 'steel' } } });
    expect(post.status).toBe(200);
    expect(post.body.results[0]).toMatchObject({ entity_id: entityId, entity_type: 'bolt', vertical: 'fasteners', vertical_data: { finish: 'zinc' }, name: 'Hex bolt M8x40' });
    const identifier = await api('POST', '/api/v1/search/fasteners', { headers: key, body: { query: 'DIN 933' } });
    expect(identifier.body.results[0]).toMatchObject({ entity_id: entityId, score: 1 });
    // The older search's filter note: entity_type filters on the entity's type.
    const typed = await api('POST', '/api/v1/search/fasteners', { headers: key, body: { query: 'hex bolt', filters: { entity_type: 'bolt' } } });
    expect(typed.body.results.map((r: { entity_id: string }) => r.entity_id)).toEqual([entityId]);
    const otherType = await api('POST', '/api/v1/search/fasteners', { headers: key, body: { filters: { entity_type: 'nut' } } });
    expect(otherType.body.results).toEqual([]);
    const get = await api('GET', '/api/v1/search/fasteners?q=hex', { headers: key });
    expect(get.body.results.map((r: { entity_id: string }) => r.entity_id)).toEqual([entityId]);
  });

  it('ingests a batch, checks the ingestion and its pipeline, and triggers the pipeline', async () => {
    const ingest = await api('POST', '/api/v1/ingest/fasteners/nut/batch', {
      headers: key,
      body: { records: [{ name: 'Hex nut M8', source_id: 'N-8', vertical_data: { size: 'M8' } }, { name: 'Hex nut M10', source_id: 'N-10', vertical_data: { size: 'M10' } }] },
    });
    expect(ingest.status).toBe(200);
    expect(ingest.body).toMatchObject({ status: 'processing', record_count: 2, duplicate_count: 0, entity_ids: [expect.any(String), expect.any(String)] });
    const id = ingest.body.ingestion_id;

    const trigger = await api('POST', `/api/v1/pipeline/trigger/${id}`, { headers: key });
    expect(trigger.status).toBe(200);
    expect(trigger.body).toEqual({ triggered: expect.any(Number), message: expect.any(String) });

    await eventually(async () => {
      const status = await api('GET', `/api/v1/pipeline/status/${id}`, { headers: key });
      expect(status.body).toEqual({ ingestion_id: id, total: 2, pending: 0, processing: 0, completed: 2, failed: 0 });
    }, 30_000);
    const ingestion = await api('GET', `/api/v1/ingestions/${id}`, { headers: key });
    expect(ingestion.body).toMatchObject({ id, status: 'completed', record_count: 2, duplicate_count: 0, error_count: 0 });
    for (const nut of ingest.body.entity_ids) expect(await embeddingStatus(nut)).toBe('completed');
    expect((await api('GET', `/api/v1/pipeline/status/${randomUUID()}`, { headers: key })).status).toBe(404);
  });

  it('updates and deletes in bulk, and retry-reset finds nothing failed', async () => {
    const ids: string[] = [];
    for (const name of ['Washer M8', 'Washer M10']) {
      const res = await api('POST', '/api/v1/entities', { headers: key, body: { name, vertical: 'fasteners', entity_type: 'washer' } });
      ids.push(res.body.id);
    }
    const bulk = await api('PATCH', '/api/v1/entities/bulk', { headers: key, body: { entity_ids: ids, update: { vertical_data: { material: 'steel' } } } });
    expect(bulk.body).toEqual({ updated: 2 });
    for (const id of ids) expect((await api('GET', `/api/v1/entities/${id}`, { headers: key })).body.vertical_data).toEqual({ material: 'steel' });
    const deleted = await api('POST', '/api/v1/entities/bulk-delete', { headers: key, body: { entity_ids: ids } });
    expect(deleted.body).toEqual({ deleted: 2 });
    expect((await api('POST', '/api/v1/entities/retry-reset', { headers: key })).body).toEqual({ reset: 0 });
  });

  it('answers bad input in the older names: current names are 422, a foreign entity is 404', async () => {
    const current = await api('POST', '/api/v1/entities', { headers: key, body: { name: 'x', collection: 'fasteners', record_type: 'bolt' } });
    expect(current.status).toBe(422);
    expect(current.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'collection'],
      ['body', 'record_type'],
    ]);
    const missing = await api('POST', '/api/v1/entities', { headers: key, body: { name: 'x', vertical: 'fasteners' } });
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'entity_type'], type: 'missing' });
    const stranger = await keyFor(randomUUID(), ['records']);
    expect((await api('GET', `/api/v1/entities/${entityId}`, { headers: bearer(stranger) })).status).toBe(404);
    expect((await api('DELETE', `/api/v1/entities/${entityId}`, { headers: bearer(stranger) })).status).toBe(404);
  });

  it('reads one record in both vocabularies: same id, same data, same lifecycle', async () => {
    const asRecord = await api('GET', `/api/v1/records/${entityId}`, { headers: key });
    expect(asRecord.body).toMatchObject({ id: entityId, collection: 'fasteners', record_type: 'bolt', indexing_status: 'indexed', claim_status: 'claimed' });
    const created = await api('POST', '/api/v1/records', { headers: key, body: { name: 'Current bolt', collection: 'current-fasteners', record_type: 'bolt' } });
    const asEntity = await api('GET', `/api/v1/entities/${created.body.id}`, { headers: key });
    expect(asEntity.body).toMatchObject({ id: created.body.id, vertical: 'current-fasteners', entity_type: 'bolt', embedding_status: 'completed' });
    // The current collection answers search in the current names only; the older one in both.
    const current = await api('POST', '/api/v1/search/current-fasteners', { headers: key, body: { query: 'bolt' } });
    expect(current.body.results[0]).not.toHaveProperty('entity_id');
    const older = await api('POST', '/api/v1/search/fasteners', { headers: key, body: { query: 'hex bolt' } });
    expect(older.body.results[0]).toMatchObject({ record_id: entityId, entity_id: entityId, collection: 'fasteners', vertical: 'fasteners' });
  });

  it('serves the older portal routes', async () => {
    const read = await api('GET', `/api/v1/portal/entities/${entityId}`, { headers: portal });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: entityId, vertical: 'fasteners', claim_status: 'claimed' });
    const patched = await api('PATCH', `/api/v1/portal/entities/${entityId}`, { headers: portal, body: { name: 'Hex bolt M8x45' } });
    expect(patched.body).toMatchObject({ name: 'Hex bolt M8x45', embedding_status: 'completed' });

    const reindex = await api('POST', '/api/v1/portal/verticals/fasteners/reindex', { headers: portal });
    expect(reindex.status).toBe(200);
    expect(reindex.body).toEqual({ vertical: 'fasteners', entities_queued: 3 });
    await eventually(async () => expect(await embeddingStatus(entityId)).toBe('completed'), 30_000);

    expect((await api('DELETE', `/api/v1/portal/entities/${entityId}`, { headers: portal })).status).toBe(204);
    expect((await api('GET', `/api/v1/entities/${entityId}`, { headers: key })).body.status).toBe('archived');
    expect((await api('POST', '/api/v1/search/fasteners', { headers: key, body: { query: 'hex bolt' } })).body.results).toEqual([]);

    const dropped = await api('DELETE', '/api/v1/portal/verticals/fasteners', { headers: portal });
    expect(dropped.status).toBe(200);
    expect(dropped.body).toEqual({ vertical: 'fasteners', entities_archived: 2 });
    expect((await api('DELETE', '/api/v1/portal/verticals/never-made', { headers: portal })).status).toBe(404);
  });
});
