import { createHash, createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import { testClient, type TestService } from '@trove/testing';
import { fixtureBytes } from '../../test/fixtures/fixtures';
import { as, countOf, eventually, newTenant, startSystem, type Client, type System } from '../../test/helpers';

/**
 * The asynchronous answer of every upload route (`Prefer: respond-async`, docs/behaviour/ingestion.md "Asynchronous
 * uploads"), against the real records service: 202 once the body has arrived, the upload read back until it ends with
 * what a synchronous upload of the same body answers.
 */
let system: System;

beforeAll(async () => {
  system = await startSystem({ STREAM_FLUSH_INTERVAL_MS: '600000' });
});
afterAll(() => system.stop());

const ASYNC = { prefer: 'respond-async' };

/** Reads the upload until it has ended; answers its status read. */
async function finished(api: Client, uploadId: string, path = '/uploads') {
  let body: any;
  await eventually(async () => {
    const res = await api.get(`${path}/${uploadId}`);
    expect(res.status).toBe(200);
    body = res.body;
    expect(body.status).not.toBe('processing');
  }, 20_000);
  return body;
}

/** What a synchronous answer and the status read of the same upload share. */
const outcome = (body: { summary: unknown; errors: unknown; metadata: { file_hash: unknown; reconciliation_passed: unknown } }) => ({
  summary: body.summary,
  errors: body.errors,
  file_hash: body.metadata.file_hash,
  reconciliation_passed: body.metadata.reconciliation_passed,
});

function expectAccepted(res: request.Response, idField = 'upload_id') {
  expect([res.status, res.headers['preference-applied'], res.body]).toEqual([202, 'respond-async', { [idField]: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'processing' }]);
  return res.body[idField] as string;
}

const rows = (n: number, bad: number[] = []) =>
  Buffer.from(`name,price,sku\n${Array.from({ length: n }, (_, i) => (bad.includes(i) ? `,${i},S${i}` : `Bolt ${i},${i}.5,S${i}`)).join('\n')}\n`);

describe('POST /upload/{collection}/{record_type}/batch with Prefer: respond-async', () => {
  it('answers 202 with the upload id, then ends as the synchronous upload of the same body does', async () => {
    const tenant = newTenant();
    const api = as(system.ingestion, tenant);
    const body = JSON.stringify({ records: [{ name: 'a', source_id: '1' }, { collection_data: { no: 'name' } }, { name: 'b' }, { name: 'a', source_id: '1' }] });
    const sync = await api.post('/upload/sync/product/batch').set('content-type', 'application/json').send(body);
    expect(sync.status).toBe(201);

    const res = await api.post('/upload/async/product/batch').set(ASYNC).set('content-type', 'application/json').send(body);
    const status = await finished(api, expectAccepted(res));
    expect(status).toMatchObject({ status: 'complete', collection: 'async', record_type: 'product', source_type: 'api', failure: null });
    expect(outcome(status)).toEqual(outcome(sync.body));
    expect(status.progress).toEqual({ records_read: 4, records_total: 4, bytes_read: null, bytes_total: null });
    expect(await countOf(system, tenant, 'async')).toBe(2);
  });

  it('refuses what it would refuse synchronously before answering, and registers nothing', async () => {
    const tenant = newTenant();
    const api = as(system.ingestion, tenant);
    const broken = await api.post('/upload/async/product/batch').set(ASYNC).set('content-type', 'application/json').send('{"records": [');
    expect(broken.status).toBe(422);
    const tooMany = await api.post('/upload/async/product/batch').set(ASYNC).send({ records: Array.from({ length: 10_001 }, () => ({ name: 'x' })) });
    expect(tooMany.status).toBe(422);
    expect((await api.get('/uploads')).body.items).toEqual([]);
  });

  it('ignores a preference it does not know, or a malformed one, and answers as specified', async () => {
    const api = as(system.ingestion, newTenant());
    for (const prefer of ['respond-asynchronously', 'respond-async=yes', 'return=minimal', '"respond-async"']) {
      const res = await api.post('/upload/plain/product/batch').set('prefer', prefer).send({ records: [{ name: 'a' }] });
      expect([res.status, res.headers['preference-applied'], res.body.status]).toEqual([201, undefined, 'complete']);
    }
  });
});

describe('POST /webhooks/upload/{collection}/{record_type} with Prefer: respond-async', () => {
  it('checks the signature before answering 202', async () => {
    const secret = 'a webhook secret';
    const svc = await system.startIngestion({ WEBHOOK_SECRET: secret });
    const api = as(svc, newTenant());
    const body = JSON.stringify({ records: [{ name: 'pushed' }] });
    const unsigned = await api.post('/webhooks/upload/hooks/product').set(ASYNC).set('content-type', 'application/json').send(body);
    expect(unsigned.status).toBe(401);
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const res = await api.post('/webhooks/upload/hooks/product').set(ASYNC).set('x-webhook-signature', signature).set('content-type', 'application/json').send(body);
    const status = await finished(api, expectAccepted(res));
    expect(status).toMatchObject({ status: 'complete', source_type: 'webhook', summary: { accepted: 1 } });
  });
});

describe('POST /upload/{collection}/{record_type}/upload with Prefer: respond-async', () => {
  it('answers 202 once the file has arrived, then ends as the synchronous upload of the same file does, its bytes counted', async () => {
    const tenant = newTenant();
    const api = as(system.ingestion, tenant);
    const file = rows(2500, [7, 1200]);
    const sync = await api.post('/upload/sync/product/upload').attach('file', file, 'bolts.csv');
    expect(sync.status).toBe(201);

    const res = await api.post('/upload/async/product/upload').set(ASYNC).attach('file', file, 'bolts.csv');
    const status = await finished(api, expectAccepted(res));
    expect(status).toMatchObject({ status: 'complete', source_type: 'file_upload', source_name: 'bolts.csv' });
    expect(outcome(status)).toEqual(outcome(sync.body));
    expect(status.metadata.file_hash).toBe(`sha256:${createHash('sha256').update(file).digest('hex')}`);
    expect(status.progress).toEqual({ records_read: 2500, records_total: null, bytes_read: file.length, bytes_total: file.length });
    expect(await countOf(system, tenant, 'async')).toBe(2498);
    // The synchronous upload counts the bytes it read too.
    const syncStatus = (await api.get(`/uploads/${sync.body.upload_id}`)).body;
    expect(syncStatus.progress).toEqual({ records_read: 2500, records_total: null, bytes_read: file.length, bytes_total: file.length });
  });

  it('reads the whole form first, so options sent after a large file apply to it', async () => {
    const api = as(system.ingestion, newTenant());
    const big = Buffer.from(`title,note\n${Array.from({ length: 12_000 }, (_, i) => `Washer ${i},${'x'.repeat(90)}`).join('\n')}\n`);
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const sync = await api.post('/upload/late-sync/product/upload').attach('file', big, 'w.csv').field('name_column', 'title');
    expect(sync.status).toBe(422);
    const res = await api.post('/upload/late/product/upload').set(ASYNC).attach('file', big, 'w.csv').field('name_column', 'title');
    const status = await finished(api, expectAccepted(res));
    expect(status.summary).toEqual({ submitted: 12_000, accepted: 12_000, rejected: 0, dedup_skipped: 0 });
  });

  it('refuses a file of the wrong kind before answering (422), keeping nothing', async () => {
    const api = as(system.ingestion, newTenant());
    const res = await api.post('/upload/async/product/upload').set(ASYNC).attach('file', Buffer.from('\x00\x01\x02 binary'), 'data.bin');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'file']);
    const pdf = await api.post('/upload/async/product/upload').set(ASYNC).attach('file', fixtureBytes('guide.pdf'), 'guide.pdf');
    expect(pdf.status).toBe(422);
    const none = await api.post('/upload/async/product/upload').set(ASYNC).field('name_column', 'title');
    expect(none.status).toBe(422);
    expect((await api.get('/uploads')).body.items).toEqual([]);
  });

  it('stores a file found unparseable part-way as failed, saying why, with the records read before it', async () => {
    const api = as(system.ingestion, newTenant());
    const json = Buffer.from(`[${Array.from({ length: 3000 }, (_, i) => JSON.stringify({ name: `r${i}` })).join(',')}, {"name": "broken",, }]`);
    const res = await api.post('/upload/broken/product/upload').set(ASYNC).attach('file', json, 'rows.json');
    const status = await finished(api, expectAccepted(res));
    expect(status).toMatchObject({ status: 'failed', failure: expect.stringMatching(/JSON/), metadata: { reconciliation_passed: false } });
    expect(status.summary.accepted).toBeGreaterThan(0);
    expect(status.completed_at).toEqual(expect.any(String));
  });

  it('reads a PDF the same way', async () => {
    const api = as(system.ingestion, newTenant());
    const sync = await api.post('/upload/docs-sync/manual/pdf').attach('file', fixtureBytes('manual-5-pages.pdf'), 'manual.pdf');
    const res = await api.post('/upload/docs/manual/pdf').set(ASYNC).attach('file', fixtureBytes('manual-5-pages.pdf'), 'manual.pdf');
    const status = await finished(api, expectAccepted(res));
    expect(outcome(status)).toEqual(outcome(sync.body));
  });

  it('is the same for the portal upload', async () => {
    const tenant = newTenant();
    const portal = testClient(system.ingestion, tenant, ['admin'], { principal: `user:${randomUUID()}` });
    const res = await portal.post('/portal/upload/parts/product/upload').set(ASYNC).attach('file', fixtureBytes('products.csv'), 'products.csv');
    const status = await finished(portal, expectAccepted(res), '/portal/uploads');
    expect(status).toMatchObject({ status: 'complete', source_name: 'products.csv' });
  });
});

describe('POST /upload/{collection}/{record_type}/stream with Prefer: respond-async', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await system.startIngestion({ STREAM_BUFFER_LIMIT: '50', STREAM_FLUSH_INTERVAL_MS: '600000' });
  });

  const lines = (n: number) => `${Array.from({ length: n }, (_, i) => (i === 3 ? 'not json' : JSON.stringify({ name: `e${i}`, n: i }))).join('\n')}\n`;

  it('makes the request an upload of its own, any number of lines, outside the buffer', async () => {
    const tenant = newTenant();
    const api = as(svc, tenant);
    const body = lines(400);
    const res = await api.post('/upload/events/event/stream').set(ASYNC).set('content-type', 'application/x-ndjson').send(body);
    const status = await finished(api, expectAccepted(res));
    expect(status).toMatchObject({
      status: 'complete',
      source_type: 'api',
      summary: { submitted: 400, accepted: 399, rejected: 1, dedup_skipped: 0 },
      progress: { records_read: 400, records_total: null, bytes_read: Buffer.byteLength(body), bytes_total: Buffer.byteLength(body) },
      metadata: { file_hash: `sha256:${createHash('sha256').update(body).digest('hex')}` },
    });
    expect(status.errors).toEqual([{ record_index: 3, error: expect.stringMatching(/^line 4: invalid JSON/), record_data: { value: 'not json' } }]);
    expect(await countOf(system, tenant, 'events')).toBe(399);
    // Nothing went into the buffer: a synchronous request finds it empty.
    const sync = await api.post('/upload/events/event/stream').set('content-type', 'application/x-ndjson').send(lines(2));
    expect(sync.body).toMatchObject({ accepted: 2, buffer_size: 2 });
  });

  it('refuses a binary body (422) and a body that is not NDJSON (415) before answering', async () => {
    const api = as(svc, newTenant());
    const binary = await api.post('/upload/events/event/stream').set(ASYNC).set('content-type', 'application/x-ndjson').send(Buffer.from('{"name":"a"}\n\x00\x00'));
    expect(binary.status).toBe(422);
    const json = await api.post('/upload/events/event/stream').set(ASYNC).set('content-type', 'application/json').send('{}');
    expect(json.status).toBe(415);
    expect((await api.get('/uploads')).body.items).toEqual([]);
  });
});

describe('the older vocabulary with Prefer: respond-async', () => {
  it('answers 202 with the ingestion id, readable at /ingestions and /uploads', async () => {
    const api = as(system.ingestion, newTenant());
    const batch = await api.post('/ingest/parts/widget/batch').set(ASYNC).send({ records: [{ name: 'w1', vertical_data: { a: 1 } }, { name: 'w2' }] });
    const id = expectAccepted(batch, 'ingestion_id');
    await finished(api, id);
    expect((await api.get(`/ingestions/${id}`)).body).toMatchObject({ id, status: 'completed', record_count: 2, duplicate_count: 0, error_count: 0 });

    const file = await api.post('/ingest/parts/widget/upload').set(ASYNC).attach('file', fixtureBytes('products.csv'), 'products.csv');
    expect((await finished(api, expectAccepted(file, 'ingestion_id'))).status).toBe('complete');
    const stream = await api.post('/ingest/parts/widget/stream').set(ASYNC).set('content-type', 'application/x-ndjson').send('{"name":"s"}\n');
    expect((await finished(api, expectAccepted(stream, 'ingestion_id'))).summary.accepted).toBe(1);
  });
});

describe('POST /portal/collections/{name}/replace with Prefer: respond-async', () => {
  it('answers 202 with the upload and its staging once counted, then writes the staging', async () => {
    const tenant = newTenant();
    const portal = testClient(system.ingestion, tenant, ['admin'], { principal: `user:${randomUUID()}` });
    const statusOf = () => testClient(system.records, tenant, ['admin'], { principal: `user:${randomUUID()}` }).get('/portal/collections/parts/replace-status');
    expect((await portal.post('/portal/upload/parts/product/upload').attach('file', fixtureBytes('products.csv'), 'products.csv')).status).toBe(201);

    const res = await portal.post('/portal/collections/parts/replace?record_type=product').set(ASYNC).attach('file', rows(300), 'parts.csv');
    expect([res.status, res.headers['preference-applied']]).toEqual([202, 'respond-async']);
    expect(res.body).toEqual({ upload_id: expect.any(String), status: 'processing', staging: { generation: 2, status: 'staging', collection: 'parts' } });
    const status = await finished(portal, res.body.upload_id, '/portal/uploads');
    expect(status).toMatchObject({ status: 'complete', summary: { accepted: 300 }, progress: { records_read: 300, records_total: 300 } });
    expect((await statusOf()).body).toMatchObject({ has_pending_replace: true, staging_generation: 2, total: 300 });
  });

  it('refuses a replace already in progress (409) before answering', async () => {
    const tenant = newTenant();
    const portal = testClient(system.ingestion, tenant, ['admin'], { principal: `user:${randomUUID()}` });
    expect((await portal.post('/portal/upload/bolts/product/upload').attach('file', fixtureBytes('products.csv'), 'products.csv')).status).toBe(201);
    const first = await portal.post('/portal/collections/bolts/replace?record_type=product').set(ASYNC).attach('file', rows(5), 'a.csv');
    expect(first.status).toBe(202);
    await finished(portal, first.body.upload_id, '/portal/uploads');
    const second = await portal.post('/portal/collections/bolts/replace?record_type=product').set(ASYNC).attach('file', rows(5), 'b.csv');
    expect(second.status).toBe(409);
  });
});
