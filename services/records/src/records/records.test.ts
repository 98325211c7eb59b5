import { recordSchema } from '@trove/contracts';
import { bolt, newTenant, startRecords, type Client, type Harness } from '../../test/helpers';

let h: Harness;
let api: Client;

beforeAll(async () => {
  h = await startRecords();
  api = h.as(newTenant());
});
afterAll(() => h.stop());

async function create(overrides: Record<string, unknown> = {}) {
  const res = await api.post('/records', bolt(overrides));
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe('POST /records', () => {
  it('creates a record and answers 201 with exactly the documented fields', async () => {
    const res = await api.post('/records', bolt());
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['collection', 'collection_data', 'created_at', 'id', 'indexing_status', 'name', 'record_type', 'visibility'].sort(),
    );
    expect(res.body).toMatchObject({
      name: 'M8 hex bolt',
      collection: 'fasteners',
      record_type: 'product',
      visibility: 'private',
      collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12 },
      indexing_status: 'pending',
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
  });

  it('stores defaults: empty collection_data, active, private, source type api, generation 1, version 1', async () => {
    const res = await api.post('/records', { name: 'Washer', collection: 'fasteners', record_type: 'product' });
    expect(res.status).toBe(201);
    const full = await api.get(`/records/${res.body.id}`);
    expect(full.body).toMatchObject({
      collection_data: {},
      status: 'active',
      visibility: 'private',
      source_type: 'api',
      generation: 1,
      version: 1,
      description: null,
      source_name: null,
      source_id: null,
      source_url: null,
      description_llm: 'Washer is a product in the fasteners collection.',
    });
  });

  it('keeps the optional fields it is given', async () => {
    const { id } = await create({
      description: 'Zinc plated',
      status: 'draft',
      visibility: 'public',
      source_name: 'erp',
      source_id: 'A-1',
      source_url: 'https://erp.example/A-1',
    });
    const full = await api.get(`/records/${id}`);
    expect(full.body).toMatchObject({
      description: 'Zinc plated',
      status: 'draft',
      visibility: 'public',
      source_name: 'erp',
      source_id: 'A-1',
      source_url: 'https://erp.example/A-1',
      source_type: 'api',
    });
  });

  it.each([
    ['name missing', { collection: 'c', record_type: 't' }, ['body', 'name'], 'missing'],
    ['collection missing', { name: 'n', record_type: 't' }, ['body', 'collection'], 'missing'],
    ['record_type missing', { name: 'n', collection: 'c' }, ['body', 'record_type'], 'missing'],
    ['empty name', bolt({ name: '' }), ['body', 'name'], 'string_too_short'],
    ['a name of only spaces', bolt({ name: '   ' }), ['body', 'name'], 'value_error'],
    ['a record_type of only spaces', bolt({ record_type: ' ' }), ['body', 'record_type'], 'value_error'],
    ['name over 500 characters', bolt({ name: 'x'.repeat(501) }), ['body', 'name'], 'string_too_long'],
    ['record_type over 100 characters', bolt({ record_type: 'x'.repeat(101) }), ['body', 'record_type'], 'string_too_long'],
    ['collection with a space', bolt({ collection: 'my collection' }), ['body', 'collection'], 'string_pattern_mismatch'],
    ['collection over 50 characters', bolt({ collection: 'c'.repeat(51) }), ['body', 'collection'], 'string_too_long'],
    ['name not a string', bolt({ name: 42 }), ['body', 'name'], 'string_type'],
    ['collection_data an array', bolt({ collection_data: [1, 2] }), ['body', 'collection_data'], 'dict_type'],
    ['collection_data a string', bolt({ collection_data: 'x' }), ['body', 'collection_data'], 'dict_type'],
    ['unknown visibility', bolt({ visibility: 'secret' }), ['body', 'visibility'], 'enum'],
    ['status archived', bolt({ status: 'archived' }), ['body', 'status'], 'enum'],
    ['an unknown field', bolt({ colour: 'red' }), ['body', 'colour'], 'extra_forbidden'],
    ['source_type given', bolt({ source_type: 'webhook' }), ['body', 'source_type'], 'extra_forbidden'],
    ['a NUL character in the name', bolt({ name: 'a\u0000b' }), ['body', 'name'], 'value_error'],
    ['a NUL character deep in collection_data', bolt({ collection_data: { a: { b: ['x\u0000'] } } }), ['body', 'collection_data', 'a', 'b', '0'], 'value_error'],
    ['an unpaired surrogate in collection_data', bolt({ collection_data: { a: '\ud800' } }), ['body', 'collection_data', 'a'], 'value_error'],
  ])('answers 422 for %s', async (_label, body, loc, type) => {
    const res = await api.post('/records', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    for (const issue of res.body.detail) expect(Object.keys(issue).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
  });

  it('answers 422 for collection_data nested deeper than 32 levels', async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const res = await api.post('/records', bolt({ collection_data: deep }));
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'collection_data']);
  });

  it('answers 422 for a body that is not JSON', async () => {
    const res = await api.post('/records').set('content-type', 'application/json').send('{"name": ');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('answers 422 for a missing body', async () => {
    const res = await api.post('/records');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
  });

  it('answers 422 for an array body', async () => {
    const res = await api.post('/records', [bolt()]);
    expect(res.status).toBe(422);
  });
});

describe('GET /records/{id}', () => {
  it('answers the full record with ISO 8601 UTC timestamps', async () => {
    const { id } = await create();
    const res = await api.get(`/records/${id}`);
    expect(res.status).toBe(200);
    expect(recordSchema.strict().parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      id,
      name: 'M8 hex bolt',
      collection: 'fasteners',
      record_type: 'product',
      indexing_status: 'pending',
      description_llm: 'M8 hex bolt is a product in the fasteners collection with material steel, standard DIN 933, price 0.12.',
    });
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body.updated_at).toBe(res.body.created_at);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await api.get('/records/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(typeof res.body.detail).toBe('string');
  });

  it('answers 400, not 500, for a path with broken percent-encoding', async () => {
    const res = await api.get('/records/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(typeof res.body.detail).toBe('string');
  });

  it('answers 422 for an id that is not a UUID', async () => {
    const res = await api.get('/records/not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'uuid_parsing', input: 'not-a-uuid' });
  });
});

describe('PATCH /records/{id}', () => {
  it('merges collection_data at the top level, removes keys set to null and rebuilds the description', async () => {
    const { id } = await create({ collection_data: { material: 'steel', price: 0.12, size: 'M8' } });
    const res = await api.patch(`/records/${id}`, { collection_data: { price: 0.15, size: null, finish: 'zinc' } });
    expect(res.status).toBe(200);
    expect(res.body.collection_data).toEqual({ material: 'steel', price: 0.15, finish: 'zinc' });
    expect(res.body.description_llm).toBe('M8 hex bolt is a product in the fasteners collection with material steel, finish zinc, price 0.15.');
  });

  it('answers the full updated record with a new version, pending indexing and a later updated_at', async () => {
    const { id } = await create();
    const before = (await api.get(`/records/${id}`)).body;
    await new Promise((r) => setTimeout(r, 5));
    const res = await api.patch(`/records/${id}`, { name: 'M10 hex bolt', record_type: 'bolt', description: 'Long', visibility: 'public' });
    expect(res.status).toBe(200);
    expect(recordSchema.strict().parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({ name: 'M10 hex bolt', record_type: 'bolt', description: 'Long', visibility: 'public', version: 2, indexing_status: 'pending' });
    expect(res.body.created_at).toBe(before.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect((await api.get(`/records/${id}`)).body).toEqual(res.body);
  });

  it('clears nullable fields given as null', async () => {
    const { id } = await create({ description: 'd', source_name: 's', source_url: 'u' });
    const res = await api.patch(`/records/${id}`, { description: null, source_name: null, source_url: null });
    expect(res.body).toMatchObject({ description: null, source_name: null, source_url: null });
  });

  it('moves a record between active and draft', async () => {
    const { id } = await create();
    expect((await api.patch(`/records/${id}`, { status: 'draft' })).body.status).toBe('draft');
    expect((await api.patch(`/records/${id}`, { status: 'active' })).body.status).toBe('active');
  });

  it('answers an empty body with the record unchanged and no new version', async () => {
    const { id } = await create();
    const res = await api.patch(`/records/${id}`, {});
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(1);
    expect(res.body).toEqual((await api.get(`/records/${id}`)).body);
  });

  it.each([
    ['an unknown field', { colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
    ['collection, which cannot change', { collection: 'other' }, ['body', 'collection'], 'extra_forbidden'],
    ['status archived', { status: 'archived' }, ['body', 'status'], 'enum'],
    ['a null name', { name: null }, ['body', 'name'], 'string_type'],
    ['an empty name', { name: '' }, ['body', 'name'], 'string_too_short'],
    ['collection_data that is not an object', { collection_data: [1] }, ['body', 'collection_data'], 'dict_type'],
  ])('answers 422 for %s and changes nothing', async (_label, body, loc, type) => {
    const { id } = await create();
    const res = await api.patch(`/records/${id}`, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect((await api.get(`/records/${id}`)).body.version).toBe(1);
  });

  it('answers 404 for an unknown id and 422 for a malformed one', async () => {
    expect((await api.patch('/records/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await api.patch('/records/123', { name: 'x' })).status).toBe(422);
  });

  it('answers 409 for an archived record and leaves it unchanged', async () => {
    const { id } = await create();
    await api.delete(`/records/${id}`);
    const res = await api.patch(`/records/${id}`, { name: 'revived' });
    expect(res.status).toBe(409);
    expect((await api.get(`/records/${id}`)).body).toMatchObject({ name: 'M8 hex bolt', status: 'archived' });
  });
});

describe('DELETE /records/{id}', () => {
  it('archives the record: 204, and it still reads with status archived', async () => {
    const { id } = await create();
    const res = await api.delete(`/records/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await api.get(`/records/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'archived', version: 2 });
  });

  it('answers 204 again for an archived record without changing it', async () => {
    const { id } = await create();
    await api.delete(`/records/${id}`);
    expect((await api.delete(`/records/${id}`)).status).toBe(204);
    expect((await api.get(`/records/${id}`)).body.version).toBe(2);
  });

  it('answers 404 for an unknown id and 422 for a malformed one', async () => {
    expect((await api.delete('/records/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api.delete('/records/abc')).status).toBe(422);
  });
});
