import { request as httpRequest } from 'node:http';
import { listen } from '@trove/platform';
import type { TestService } from '@trove/runtime';
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

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const headers = { ...small.as(newTenant(), ['upload']), 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(10 * 1024 ** 3) };
    const answer = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/upload/limited/product/upload', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, sent: req.socket?.bytesWritten ?? 0 }));
      });
      req.on('error', reject);
      // Only the start of the promised 10 GB is ever sent; the answer must come without the rest.
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="huge.csv"\r\n\r\nname\n');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).detail).toMatch(/upload limit/);
  });
});
