import { createHash } from 'node:crypto';
import {
  COLLECTION_DATA_MAX_DEPTH,
  COLLECTION_DATA_MAX_FIELDS,
  DESCRIPTION_MAX,
  FIELD_NAME_MAX_LENGTH,
  RECORD_NAME_MAX,
  SOURCE_ID_MAX,
  SOURCE_URL_MAX,
} from '@trove/contracts';
import { as, byName, newTenant, recordsOf, startSystem, type Client, type System } from '../../test/helpers';

let system: System;
let tenant: string;
let api: Client;

beforeAll(async () => {
  system = await startSystem();
  tenant = newTenant();
  api = as(system.ingestion, tenant);
});
afterAll(() => system.stop());

const batch = (collection: string, body: unknown, query = '') =>
  api.post(`/upload/${collection}/product/batch${query}`).set('content-type', 'application/json').send(JSON.stringify(body));

describe('POST /upload/{collection}/{record_type}/batch', () => {
  it('reports pipeline_backpressure once the records awaiting indexing exceed INDEXING_BACKLOG_THRESHOLD', async () => {
    const strict = as(await system.startIngestion({ INDEXING_BACKLOG_THRESHOLD: '2' }), newTenant());
    const send = (names: string[]) =>
      strict.post('/upload/lagging/product/batch').set('content-type', 'application/json').send(JSON.stringify({ records: names.map((name) => ({ name })) }));
    // Nothing indexes in this test system, so every record stays pending.
    expect((await send(['a', 'b'])).body.metadata.pipeline_backpressure).toBe(false);
    expect((await send(['c'])).body.metadata.pipeline_backpressure).toBe(true);
  });

  it('stores each record with its name, typed collection_data and source fields, and answers the upload result', async () => {
    const body = {
      records: [
        { name: 'M8 hex bolt', source_id: 'B-8', collection_data: { price: 0.12, in_stock: true, standard: 'DIN 933', dims: { l: 40 } } },
        { name: 'M8 washer', collection_data: { price: 0.02, in_stock: false } },
      ],
    };
    const raw = JSON.stringify(body);
    const res = await api.post('/upload/bolts/product/batch').set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'complete',
      summary: { submitted: 2, accepted: 2, rejected: 0, dedup_skipped: 0 },
      errors: [],
      metadata: {
        processing_time_ms: expect.any(Number),
        file_hash: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
        reconciliation_passed: true,
        pipeline_backpressure: false,
      },
    });

    const stored = await recordsOf(system, tenant, 'bolts');
    expect(stored).toHaveLength(2);
    expect(byName(stored, 'M8 hex bolt')).toMatchObject({
      record_type: 'product',
      collection_data: { price: 0.12, in_stock: true, standard: 'DIN 933', dims: { l: 40 } },
      source_type: 'api',
      source_name: null,
      source_id: 'B-8',
    });
    expect(byName(stored, 'M8 washer')).toMatchObject({ source_id: null, collection_data: { price: 0.02, in_stock: false } });
  });

  it('rejects bad records one by one with dead letters and stores the rest', async () => {
    const res = await batch('mixed', {
      records: [
        { name: 'Good one', collection_data: { n: 1 } },
        { collection_data: { n: 2 } },
        { name: 'Bad data', collection_data: 'n=3' },
        'not an object',
        { name: { first: 'x' } },
        { name: 'Good two', extra: 'kept' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 6, accepted: 2, rejected: 4, dedup_skipped: 0 });
    expect(res.body.metadata.reconciliation_passed).toBe(true);
    expect(res.body.errors).toEqual([
      { record_index: 1, error: 'name is required', record_data: { collection_data: { n: 2 } } },
      { record_index: 2, error: 'collection_data must be an object', record_data: { name: 'Bad data', collection_data: 'n=3' } },
      { record_index: 3, error: 'a record must be a JSON object', record_data: { value: 'not an object' } },
      { record_index: 4, error: 'name must be a string', record_data: { name: { first: 'x' } } },
    ]);
    const stored = await recordsOf(system, tenant, 'mixed');
    expect(stored.map((r) => r.name)).toEqual(['Good one', 'Good two']);
    expect(byName(stored, 'Good two').collection_data).toEqual({ extra: 'kept' });
  });

  it('sends records only records it will store: each at a limit of the record contract is stored, each past it is rejected alone', async () => {
    // collection_data is level 1, so `levels` objects put the innermost value at level levels + 1.
    const nested = (levels: number): unknown => (levels === 0 ? 'x' : { a: nested(levels - 1) });
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    const url = (length: number) => `https://example.com/${'p'.repeat(length - 20)}`;
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['name', { name: 'n'.repeat(RECORD_NAME_MAX) }, true],
      ['name+1', { name: 'n'.repeat(RECORD_NAME_MAX + 1) }, false],
      ['source_id', { source_id: 's'.repeat(SOURCE_ID_MAX) }, true],
      ['source_id+1', { source_id: 's'.repeat(SOURCE_ID_MAX + 1) }, false],
      ['source_url', { source_url: url(SOURCE_URL_MAX) }, true],
      ['source_url+1', { source_url: url(SOURCE_URL_MAX + 1) }, false],
      ['description', { description: 'd'.repeat(DESCRIPTION_MAX) }, true],
      ['description+1', { description: 'd'.repeat(DESCRIPTION_MAX + 1) }, false],
      ['depth', { collection_data: nested(COLLECTION_DATA_MAX_DEPTH - 1) }, true],
      ['depth+1', { collection_data: nested(COLLECTION_DATA_MAX_DEPTH) }, false],
      ['fields', { collection_data: fields(COLLECTION_DATA_MAX_FIELDS) }, true],
      ['fields+1', { collection_data: fields(COLLECTION_DATA_MAX_FIELDS + 1) }, false],
      ['key', { collection_data: { ['k'.repeat(FIELD_NAME_MAX_LENGTH)]: 1 } }, true],
      ['key+1', { collection_data: { ['k'.repeat(FIELD_NAME_MAX_LENGTH + 1)]: 1 } }, false],
      ['nul', { collection_data: { deep: [{ text: 'a\u0000b' }] } }, false],
      ['surrogate', { collection_data: { ['\ud800']: 1 } }, false],
    ];
    const records = cases.map(([label, fieldsOf]) => ({ name: label, ...fieldsOf }));
    const res = await batch('edges', { records });
    expect(res.status).toBe(201);
    const stored = cases.filter(([, , ok]) => ok).map(([label]) => label);
    const rejected = cases.flatMap(([, , ok], i) => (ok ? [] : [i]));
    expect(res.body.summary).toEqual({ submitted: cases.length, accepted: stored.length, rejected: rejected.length, dedup_skipped: 0 });
    expect(res.body.metadata.reconciliation_passed).toBe(true);
    expect(res.body.errors.map((e: { record_index: number }) => e.record_index)).toEqual(rejected);
    for (const e of res.body.errors as Array<{ error: string }>) expect(e.error).not.toMatch(/^not (written|confirmed)/);
    const names = (await recordsOf(system, tenant, 'edges')).map((r) => (r.name.length > 20 ? `name` : r.name)).sort();
    expect(names).toEqual([...stored].sort());
  });

  it('skips an identical re-upload as duplicates and updates a changed record with the same source_id', async () => {
    const body = {
      records: [
        { name: 'Nut A', source_id: 'A', collection_data: { price: 1.5 } },
        { name: 'Nut B', source_id: 'B', collection_data: { price: 2 } },
        { name: 'Nut C', collection_data: { price: 3 } },
      ],
    };
    expect((await batch('nuts', body)).body.summary).toEqual({ submitted: 3, accepted: 3, rejected: 0, dedup_skipped: 0 });
    const before = await recordsOf(system, tenant, 'nuts');

    const again = await batch('nuts', body);
    expect(again.body.summary).toEqual({ submitted: 3, accepted: 0, rejected: 0, dedup_skipped: 3 });
    expect(again.body.metadata.reconciliation_passed).toBe(true);

    const changed = await batch('nuts', { records: [{ name: 'Nut A', source_id: 'A', collection_data: { price: 1.75 } }] });
    expect(changed.body.summary).toEqual({ submitted: 1, accepted: 1, rejected: 0, dedup_skipped: 0 });

    const after = await recordsOf(system, tenant, 'nuts');
    expect(after.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());
    expect(byName(after, 'Nut A')).toMatchObject({ collection_data: { price: 1.75 }, version: 2 });
    expect(byName(after, 'Nut B')).toMatchObject({ collection_data: { price: 2 }, version: 1 });
  });

  it('labels the records with the source_name query parameter', async () => {
    const res = await batch('labelled', { records: [{ name: 'From ERP' }] }, '?source_name=erp-export');
    expect(res.status).toBe(201);
    expect((await recordsOf(system, tenant, 'labelled'))[0]).toMatchObject({ source_name: 'erp-export', source_type: 'api' });
  });

  it('accepts 10,000 records in one batch and writes them all', async () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({ name: `Part ${i}`, source_id: `P${i}`, collection_data: { i, even: i % 2 === 0 } }));
    const res = await batch('big', { records });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 10_000, accepted: 10_000, rejected: 0, dedup_skipped: 0 });
    expect(res.body.metadata.reconciliation_passed).toBe(true);
    const list = await as(system.records, tenant, ['records']).get('/records?collection=big&limit=1');
    expect(list.body.has_more).toBe(true);
  });

  it('answers 422 for more than 10,000 records and stores none of them', async () => {
    const records = Array.from({ length: 10_001 }, (_, i) => ({ name: `Over ${i}` }));
    const res = await batch('toomany', { records });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'records'], type: 'too_long' })]);
    expect(await recordsOf(system, tenant, 'toomany')).toEqual([]);
  });

  it.each([
    ['records is not a list', { records: { name: 'x' } }, ['body', 'records'], 'list_type'],
    ['records is missing', {}, ['body', 'records'], 'missing'],
    ['an unknown field is sent', { records: [], recs: [] }, ['body', 'recs'], 'extra_forbidden'],
  ])('answers 422 when %s', async (_what, body, loc, type) => {
    const res = await batch('invalid', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type })]);
  });

  it('answers 422 json_invalid for a body that is not JSON', async () => {
    const res = await api.post('/upload/invalid/product/batch').set('content-type', 'application/json').send('{"records": [');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it.each([
    ['a collection with a space', '/upload/bad%20name/product/batch', 'collection'],
    ['a collection over 50 characters', `/upload/${'c'.repeat(51)}/product/batch`, 'collection'],
    ['a record type over 100 characters', `/upload/ok/${'t'.repeat(101)}/batch`, 'record_type'],
    ['a blank record type', '/upload/ok/%20%20/batch', 'record_type'],
  ])('answers 422 for %s in the path', async (_what, path, field) => {
    const res = await api.post(path).set('content-type', 'application/json').send('{"records":[{"name":"x"}]}');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', field]);
  });

  it('answers 201 with zero counts for an empty list', async () => {
    const res = await batch('empty', { records: [] });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: 0, accepted: 0, rejected: 0, dedup_skipped: 0 });
  });
});

describe('GET /uploads/{upload_id} and /errors', () => {
  let uploadId: string;

  beforeAll(async () => {
    const records = [
      { name: 'ok 0' },
      ...Array.from({ length: 150 }, (_, i) => ({ collection_data: { i } })),
      { name: 'ok 151' },
    ];
    const res = await batch('status', { records });
    expect(res.body.summary).toEqual({ submitted: 152, accepted: 2, rejected: 150, dedup_skipped: 0 });
    expect(res.body.errors).toHaveLength(100);
    uploadId = res.body.upload_id;
  });

  it('reads the upload back with its summary, first errors, metadata and timestamps', async () => {
    const res = await api.get(`/uploads/${uploadId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: uploadId,
      status: 'complete',
      collection: 'status',
      record_type: 'product',
      source_type: 'api',
      source_name: null,
      summary: { submitted: 152, accepted: 2, rejected: 150, dedup_skipped: 0 },
      // A batch's records arrive parsed: they are counted, its bytes are not.
      progress: { records_read: 152, records_total: 152, bytes_read: null, bytes_total: null },
      failure: null,
      errors: expect.any(Array),
      metadata: {
        processing_time_ms: expect.any(Number),
        file_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        reconciliation_passed: true,
        pipeline_backpressure: false,
      },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      completed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors[0]).toEqual({ record_index: 1, error: 'name is required', record_data: { collection_data: { i: 0 } } });
    expect(Date.parse(res.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
  });

  it('lists every dead letter in record_index order', async () => {
    const res = await api.get(`/uploads/${uploadId}/errors`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(150);
    expect(res.body.map((l: { record_index: number }) => l.record_index)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(res.body[149]).toEqual({ record_index: 150, error: 'name is required', record_data: { collection_data: { i: 149 } } });
  });

  it('answers an empty list for an upload without dead letters', async () => {
    const ok = await batch('status-ok', { records: [{ name: 'fine' }] });
    const res = await api.get(`/uploads/${ok.body.upload_id}/errors`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("answers 404 for another tenant's upload exactly as for a missing one", async () => {
    const other = as(system.ingestion, newTenant());
    const theirs = await other.get(`/uploads/${uploadId}`);
    const missing = await other.get('/uploads/00000000-0000-4000-8000-000000000000');
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(Object.keys(theirs.body)).toEqual(['detail']);
    expect((await other.get(`/uploads/${uploadId}/errors`)).status).toBe(404);
  });

  it('answers 422 for an upload id that is not a UUID', async () => {
    const res = await api.get('/uploads/not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['path', 'upload_id'], type: 'uuid_parsing' });
    expect((await api.get('/uploads/not-a-uuid/errors')).status).toBe(422);
  });
});

describe('scopes', () => {
  it('answers 403 to a caller without the upload scope, on every upload endpoint', async () => {
    const records = as(system.ingestion, tenant, ['records', 'search']);
    expect((await records.post('/upload/x/y/batch').send({ records: [] })).status).toBe(403);
    expect((await records.post('/upload/x/y/upload')).status).toBe(403);
    expect((await records.post('/upload/x/y/pdf')).status).toBe(403);
    expect((await records.post('/upload/x/y/stream').set('content-type', 'application/x-ndjson').send('{"name":"a"}\n')).status).toBe(403);
    expect((await records.post('/webhooks/upload/x/y').send({ records: [] })).status).toBe(403);
    expect((await records.get('/uploads/00000000-0000-4000-8000-000000000000')).status).toBe(403);
  });

  it('lets admin upload, as admin implies every scope', async () => {
    const admin = as(system.ingestion, tenant, ['admin']);
    expect((await admin.post('/upload/admin-up/product/batch').send({ records: [{ name: 'a' }] })).status).toBe(201);
  });
});
