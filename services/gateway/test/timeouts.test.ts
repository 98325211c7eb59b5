import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { devTenant, startStack, type Stack } from './support';

// An upstream that answers /search/slow and /uploads/slow only after 1.5 s, /uploads/medium after 1 s, and on any
// other path starts an event stream at once and then stays quiet for 1.5 s before finishing it.
const upstream = createServer((req, res) => {
  if (req.url!.startsWith('/uploads/slow') || req.url!.startsWith('/search/slow')) {
    setTimeout(() => res.end('late'), 1_500);
    return;
  }
  if (req.url!.startsWith('/uploads/medium')) {
    setTimeout(() => res.end('stored'), 1_000);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('data: first\n\n');
  setTimeout(() => res.end('data: second\n\n'), 1_500);
});

let stack: Stack;

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  stack = await startStack({ INGESTION_URL: url, MCP_URL: url, SEARCH_URL: url, UPSTREAM_TIMEOUT_MS: '500', UPLOAD_TIMEOUT_MS: '1200' });
});
afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => upstream.close(resolve));
});

it('answers 503 when an upstream stays silent longer than UPSTREAM_TIMEOUT_MS', async () => {
  const res = await request(stack.gateway.instance.app).post('/api/v1/search/slow').set(devTenant(randomUUID())).send({ query: 'x' });
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ detail: 'The search service is unavailable; try again shortly' });
});

it('waits up to UPLOAD_TIMEOUT_MS for an upload, which answers only once it is stored', async () => {
  const tenant = devTenant(randomUUID());
  const stored = await request(stack.gateway.instance.app).get('/api/v1/uploads/medium').set(tenant);
  expect(stored.status).toBe(200);
  expect(stored.text).toBe('stored');
  const res = await request(stack.gateway.instance.app).get('/api/v1/uploads/slow').set(tenant);
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ detail: 'The ingestion service is unavailable; try again shortly' });
});

it('lets a response stream that has started stay quiet longer than UPSTREAM_TIMEOUT_MS', async () => {
  const res = await request(stack.gateway.instance.app)
    .post('/mcp/')
    .set(devTenant(randomUUID()))
    .buffer(true)
    .parse((stream, done) => {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk));
      stream.on('end', () => done(null, text));
    });
  expect(res.status).toBe(200);
  expect(res.body).toBe('data: first\n\ndata: second\n\n');
});
