import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { sql } from 'kysely';
import { listen } from '@trove/platform';
import type { TestService } from '@trove/testing';
import { as, countOf, newTenant, startSystem, type System } from './helpers';

let system: System;

beforeAll(async () => {
  system = await startSystem();
});
afterAll(() => system.stop());

describe('when records cannot be reached', () => {
  let cut: TestService;
  beforeAll(async () => {
    cut = await system.startIngestion({ RECORDS_URL: 'http://127.0.0.1:9' });
  });

  it('reports each chunk as not written with dead letters and failed reconciliation, without a 500', async () => {
    const tenant = newTenant();
    const res = await as(cut, tenant)
      .post('/upload/down/product/batch')
      .send({ records: [{ name: 'a' }, { name: 'b' }, {}] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'complete',
      summary: { submitted: 3, accepted: 0, rejected: 3, dedup_skipped: 0 },
      metadata: { reconciliation_passed: false },
    });
    expect(res.body.errors).toEqual([
      { record_index: 0, error: expect.stringMatching(/^not written: .*records service is unavailable/), record_data: { name: 'a' } },
      { record_index: 1, error: expect.stringMatching(/^not written: /), record_data: { name: 'b' } },
      { record_index: 2, error: 'name is required', record_data: {} },
    ]);
    const status = await as(cut, tenant).get(`/uploads/${res.body.upload_id}`);
    expect(status.body).toMatchObject({ status: 'complete', metadata: { reconciliation_passed: false } });
  });
});

describe('upload size limits', () => {
  let small: TestService;
  let port: number;
  let close: () => Promise<void>;

  beforeAll(async () => {
    small = await system.startIngestion({ UPLOAD_MAX_BYTES: '4096' });
    const server = await listen(small.instance.app, 0, '127.0.0.1');
    port = server.port;
    close = () => server.close(100);
  });
  afterAll(() => close());

  it('answers 413 for a file that crosses the limit while it streams, and stores nothing of it', async () => {
    const tenant = newTenant();
    const csv = 'name,n\n' + Array.from({ length: 1000 }, (_, i) => `row ${i},${i}`).join('\n');
    const res = await as(small, tenant).post('/upload/limited/product/upload').attach('file', Buffer.from(csv), 'rows.csv');
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/4096 bytes/);
    expect(await countOf(system, tenant, 'limited')).toBe(0);
  });

  it('answers 413 for a stream request over the limit', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ name: `line ${i}` })).join('\n');
    const res = await as(small, newTenant()).post('/upload/limited/event/stream').set('content-type', 'application/x-ndjson').send(lines);
    expect(res.status).toBe(413);
  });

  /** Sends headers promising `length` bytes and only the first few; the answer must come without the rest. */
  function declare(path: string, contentType: string, length: number, start: string) {
    const headers = { ...small.as(newTenant(), ['upload']), 'content-type': contentType, 'content-length': String(length) };
    return new Promise<{ status: number; detail: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, detail: JSON.parse(body).detail }));
      });
      req.on('error', reject);
      req.write(start);
    });
  }

  it('refuses a file upload whose declared Content-Length is over the limit before reading the body', async () => {
    const start = '--x\r\nContent-Disposition: form-data; name="file"; filename="huge.csv"\r\n\r\nname\n';
    const answer = await declare('/upload/limited/product/upload', 'multipart/form-data; boundary=x', 10 * 1024 ** 3, start);
    expect(answer).toEqual({ status: 413, detail: expect.stringMatching(/upload limit/) });
  });

  it('refuses a batch whose declared Content-Length is over 64 MB before reading the body', async () => {
    const answer = await declare('/upload/limited/product/batch', 'application/json', 65 * 1024 ** 2, '{"records":[');
    expect(answer).toEqual({ status: 413, detail: expect.stringMatching(/limit/) });
  });
});

describe('uploads whose length is not declared', () => {
  const limit = 2 * 1024 * 1024;
  let limited: TestService;
  let port: number;
  let close: () => Promise<void>;

  beforeAll(async () => {
    limited = await system.startIngestion({ UPLOAD_MAX_BYTES: String(limit) });
    const server = await listen(limited.instance.app, 0, '127.0.0.1');
    port = server.port;
    close = () => server.close(100);
  });
  afterAll(() => close());

  /** A CSV of about `bytes` bytes, well past the 1 MB look-ahead, so the old streaming path wrote chunks early. */
  function csvOf(bytes: number): { csv: string; rows: number } {
    const row = (i: number) => `row ${i},${i},${'x'.repeat(600)}\n`;
    let csv = 'name,n,pad\n';
    let rows = 0;
    while (csv.length < bytes) csv += row(rows++);
    return { csv, rows };
  }

  /** Posts a multipart upload in pieces with chunked transfer encoding: no Content-Length tells its size. */
  function postChunked(tenant: string, collection: string, csv: string) {
    const boundary = 'trove-chunked-boundary';
    const headers = { ...limited.as(tenant, ['upload']), 'content-type': `multipart/form-data; boundary=${boundary}` };
    return new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `/upload/${collection}/product/upload`, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\n`);
      for (let i = 0; i < csv.length; i += 64 * 1024) req.write(csv.slice(i, i + 64 * 1024));
      req.end(`\r\n--${boundary}--\r\n`);
    });
  }

  it('answers 413 for a file that crosses the limit and stores none of it, however much came before', async () => {
    const tenant = newTenant();

    const res = await postChunked(tenant, 'unsized', csvOf(3 * 1024 * 1024).csv);

    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/exceeds the upload limit/);
    expect(await countOf(system, tenant, 'unsized')).toBe(0);
  });

  it('stores every record of a file within the limit', async () => {
    const tenant = newTenant();
    const { csv, rows } = csvOf(1.5 * 1024 * 1024);

    const res = await postChunked(tenant, 'unsized-ok', csv);

    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({ submitted: rows, accepted: rows, rejected: 0, dedup_skipped: 0 });
    expect(await countOf(system, tenant, 'unsized-ok')).toBe(rows);
  });
});

describe('an upload whose ingestion process stopped', () => {
  let watching: TestService;

  beforeAll(async () => {
    watching = await system.startIngestion({ UPLOAD_STALE_SECONDS: '1' });
  });

  it('reads as failed with what it wrote and rejected, instead of processing forever', async () => {
    const tenant = newTenant();
    const id = randomUUID();
    const db = system.records.database.db;
    // What a process that died after one written chunk of two records and one dead letter leaves behind.
    await sql`
      insert into ingestion.uploads (id, tenant_id, collection, record_type, source_type, created_at, heartbeat_at)
      values (${id}, ${tenant}, 'crashed', 'product', 'api', now() - interval '1 hour', now() - interval '1 hour')
    `.execute(db);
    await sql`insert into ingestion.upload_records (upload_id, first_index, record_ids) values (${id}, 0, ${[randomUUID(), randomUUID()]}::uuid[])`.execute(db);
    await sql`insert into ingestion.dead_letters (upload_id, record_index, error, record_data) values (${id}, 2, 'name is required', '{}')`.execute(db);
    const api = as(watching, tenant);

    let status = (await api.get(`/uploads/${id}`)).body;
    for (let i = 0; i < 50 && status.status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await api.get(`/uploads/${id}`)).body;
    }

    expect(status).toMatchObject({
      id,
      status: 'failed',
      summary: { submitted: 3, accepted: 2, rejected: 1, dedup_skipped: 0 },
      metadata: { reconciliation_passed: false },
    });
    expect(Date.parse(status.completed_at)).toBeGreaterThan(Date.parse(status.created_at));
    expect((await api.get(`/uploads/${id}/errors`)).body).toEqual([{ record_index: 2, error: 'name is required', record_data: {} }]);
  });
});
