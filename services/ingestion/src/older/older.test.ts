import { createHmac } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { TOPICS, recordChangedEvent, type RecordChangedEvent } from '@trove/contracts';
import type { TestService } from '@trove/testing';
import { fixtureBytes } from '../../test/fixtures/fixtures';
import { as, byName, eventually, newTenant, recordsOf, startSystem, type Client, type System } from '../../test/helpers';

const SECRET = 'older-webhook-secret';
let system: System;
let signed: TestService;
let tenant: string;
let api: Client;

beforeAll(async () => {
  system = await startSystem();
  signed = await system.startIngestion({ WEBHOOK_SECRET: SECRET });
});
afterAll(() => system.stop());
beforeEach(() => {
  tenant = newTenant();
  api = as(system.ingestion, tenant);
});

const json = (path: string, body: unknown, client: Client = api) =>
  client.post(path).set('content-type', 'application/json').send(JSON.stringify(body));

describe('older vocabulary: POST /ingest/{vertical}/{entity_type}/batch', () => {
  it('stores records with vertical_data as collection_data and answers the older ingestion result in record order', async () => {
    const res = await json('/ingest/bolts/product/batch', {
      records: [
        { name: 'M8 hex bolt', source_id: 'B-8', vertical_data: { price: 0.12, standard: 'DIN 933' } },
        { name: 'M8 washer', vertical_data: { price: 0.02 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ingestion_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'processing',
      record_count: 2,
      duplicate_count: 0,
      entity_ids: [expect.any(String), expect.any(String)],
    });
    const stored = await recordsOf(system, tenant, 'bolts');
    const bolt = byName(stored, 'M8 hex bolt');
    expect(bolt).toMatchObject({ record_type: 'product', source_id: 'B-8', source_type: 'api', collection_data: { price: 0.12, standard: 'DIN 933' } });
    expect(res.body.entity_ids).toEqual([bolt.id, byName(stored, 'M8 washer').id]);
  });

  it('counts an unchanged re-upload as duplicates, with no entity ids, and a changed one as written', async () => {
    const body = { records: [{ name: 'Nut', source_id: 'N-1', vertical_data: { size: 'M8' } }] };
    const first = await json('/ingest/nuts/part/batch', body);
    const again = await json('/ingest/nuts/part/batch', body);
    expect(again.body).toMatchObject({ record_count: 0, duplicate_count: 1, entity_ids: [] });
    const changed = await json('/ingest/nuts/part/batch', { records: [{ name: 'Nut', source_id: 'N-1', vertical_data: { size: 'M10' } }] });
    expect(changed.body).toMatchObject({ record_count: 1, duplicate_count: 0, entity_ids: first.body.entity_ids });
    expect((await recordsOf(system, tenant, 'nuts'))[0]!.collection_data).toEqual({ size: 'M10' });
  });

  it('answers bad input in the older names: the path field, vertical_data and the ingestion status and dead letters', async () => {
    const badPath = await json('/ingest/bolts/%20/batch', { records: [{ name: 'x' }] });
    expect(badPath.status).toBe(422);
    expect(JSON.stringify(badPath.body)).toContain('entity_type');

    const res = await json('/ingest/mixed/product/batch', {
      records: [{ name: 'Good', vertical_data: { n: 1 } }, { vertical_data: { n: 2 } }, { name: 'Bad', vertical_data: 'n=3' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ record_count: 1, duplicate_count: 0 });

    const status = await api.get(`/ingestions/${res.body.ingestion_id}`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      id: res.body.ingestion_id,
      status: 'completed',
      record_count: 1,
      duplicate_count: 0,
      error_count: 2,
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    const errors = await api.get(`/ingestions/${res.body.ingestion_id}/errors`);
    expect(errors.status).toBe(200);
    expect(errors.body).toEqual([
      { record_index: 1, error: 'name is required', record_data: { vertical_data: { n: 2 } } },
      { record_index: 2, error: 'vertical_data must be an object', record_data: { name: 'Bad', vertical_data: 'n=3' } },
    ]);
    expect((await as(system.ingestion, newTenant()).get(`/ingestions/${res.body.ingestion_id}`)).status).toBe(404);
  });

  it('shows the dead letters of an upload made in the current vocabulary with vertical_data', async () => {
    const res = await json('/upload/mixed/product/batch', { records: [{ collection_data: { n: 2 } }] });
    const errors = await api.get(`/ingestions/${res.body.upload_id}/errors`);
    expect(errors.body).toEqual([{ record_index: 0, error: 'name is required', record_data: { vertical_data: { n: 2 } } }]);
  });
});

describe('older vocabulary: files, stream and webhook', () => {
  it('ingests a CSV file through /ingest/{vertical}/{entity_type}/upload with the older result', async () => {
    const res = await api.post('/ingest/catalogue/product/upload').attach('file', fixtureBytes('products.csv'), { filename: 'products.csv', contentType: 'text/csv' });
    expect(res.status).toBe(200);
    const stored = await recordsOf(system, tenant, 'catalogue');
    expect(res.body).toMatchObject({ status: 'processing', record_count: stored.length, duplicate_count: 0 });
    expect([...res.body.entity_ids].sort()).toEqual(stored.map((r) => r.id).sort());
    expect(byName(stored, 'Hex bolt M8x40')).toMatchObject({ source_type: 'file_upload', source_name: 'products.csv' });
  });

  it('points a PDF sent to the records file route at the older pdf route', async () => {
    const res = await api.post('/ingest/docs/manual/upload').attach('file', fixtureBytes('guide.pdf'), { filename: 'guide.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('/ingest/{vertical}/{entity_type}/pdf');
    const pdf = await api.post('/ingest/docs/manual/pdf').attach('file', fixtureBytes('guide.pdf'), { filename: 'guide.pdf', contentType: 'application/pdf' });
    expect(pdf.status).toBe(200);
    expect(pdf.body).toMatchObject({ record_count: 1, entity_ids: [expect.any(String)] });
  });

  it('streams NDJSON through /ingest/{vertical}/{entity_type}/stream, reading vertical_data', async () => {
    const lines = [JSON.stringify({ name: 'Streamed', vertical_data: { n: 1 } }), 'not json'].join('\n');
    const res = await api.post('/ingest/streamed/item/stream').set('content-type', 'application/x-ndjson').send(lines);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 1, parse_errors: 1 });
    await eventually(async () => {
      expect(await recordsOf(system, tenant, 'streamed')).toEqual([expect.objectContaining({ name: 'Streamed', collection_data: { n: 1 } })]);
    });
  });

  it('checks the webhook signature on /webhooks/ingest/{vertical}/{entity_type}', async () => {
    const body = JSON.stringify({ records: [{ name: 'Hooked', vertical_data: { n: 1 } }] });
    const push = (signature?: string) => {
      const req = as(signed, tenant).post('/webhooks/ingest/hooks/event').set('content-type', 'application/json');
      if (signature) req.set('x-webhook-signature', signature);
      return req.send(body);
    };
    expect((await push()).status).toBe(401);
    const res = await push(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ record_count: 1, duplicate_count: 0 });
    expect((await recordsOf(system, tenant, 'hooks'))[0]).toMatchObject({ name: 'Hooked', source_type: 'webhook', collection_data: { n: 1 } });
  });
});

describe('older uploads go through the pipeline', () => {
  it('marks what they write for the pipeline in an older collection; current uploads are indexed directly', async () => {
    const seen: RecordChangedEvent[] = [];
    const subscription = await system.records.bus.subscribe({
      group: `test.older-uploads.${randomUUID()}`,
      topics: [TOPICS.recordsChanged],
      handler: async (events) => {
        for (const e of events) seen.push(recordChangedEvent.parse(e.payload));
      },
    });
    try {
      const batch = await json('/ingest/piped/part/batch', { records: [{ name: 'Piped bolt' }] });
      const streamed = await api.post('/ingest/piped-stream/part/stream').set('content-type', 'application/x-ndjson').send(JSON.stringify({ name: 'Piped nut' }));
      expect(streamed.status).toBe(200);
      expect((await json('/upload/direct/part/batch', { records: [{ name: 'Direct bolt' }] })).status).toBe(201);
      await eventually(async () => expect(seen.filter((e) => e.tenant_id === tenant)).toHaveLength(3));
      const byName = (name: string) => seen.find((e) => e.kind === 'upserted' && e.record.name === name);
      expect(byName('Piped bolt')).toMatchObject({ record_id: batch.body.entity_ids[0], pipeline: true, collection_vocabulary: 'older' });
      expect(byName('Piped nut')).toMatchObject({ pipeline: true, collection_vocabulary: 'older' });
      expect(byName('Direct bolt')).not.toHaveProperty('pipeline');
      expect(byName('Direct bolt')).not.toHaveProperty('collection_vocabulary');
    } finally {
      await subscription.stop();
    }
  });
});

describe('older pipeline: GET /pipeline/status/{ingestion_id} and POST /pipeline/trigger/{ingestion_id}', () => {
  it('counts the records the ingestion wrote by indexing status, and queues the pending and failed ones again', async () => {
    await json('/ingest/pipe/product/batch', { records: [{ name: 'Kept', source_id: 'K' }] });
    const res = await json('/ingest/pipe/product/batch', {
      records: [{ name: 'Kept', source_id: 'K' }, { name: 'A', source_id: 'A' }, { name: 'B', source_id: 'B' }, { name: 'C', source_id: 'C' }],
    });
    const [a, b] = res.body.entity_ids as string[];
    const status = () => api.get(`/pipeline/status/${res.body.ingestion_id}`);
    expect((await status()).body).toEqual({ ingestion_id: res.body.ingestion_id, total: 3, pending: 3, processing: 0, completed: 0, failed: 0 });

    // What search does once it has indexed a version (or given up on it).
    await system.records.bus.publish(
      [
        { id: a!, status: 'indexed' },
        { id: b!, status: 'failed' },
      ].map(({ id, status }) => ({ topic: TOPICS.recordsIndexed, key: id, payload: { tenant_id: tenant, record_id: id, version: 1, status } })),
    );
    await eventually(async () => {
      expect((await status()).body).toMatchObject({ total: 3, pending: 1, completed: 1, failed: 1 });
    });

    const trigger = await api.post(`/pipeline/trigger/${res.body.ingestion_id}`);
    expect(trigger.status).toBe(200);
    expect(trigger.body).toEqual({ triggered: 2, message: expect.stringContaining('2 records') });
    expect((await status()).body).toMatchObject({ total: 3, pending: 2, completed: 1, failed: 0 });

    const stranger = as(system.ingestion, newTenant());
    expect((await stranger.get(`/pipeline/status/${res.body.ingestion_id}`)).status).toBe(404);
    expect((await stranger.post(`/pipeline/trigger/${res.body.ingestion_id}`)).status).toBe(404);
    expect((await api.get('/pipeline/status/not-a-uuid')).status).toBe(422);
  });
});
