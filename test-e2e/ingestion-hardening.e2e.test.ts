import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { bearer, useTrove } from './support/system';

jest.setTimeout(120_000);

const UPLOAD_MAX_BYTES = 1024 * 1024;
const trove = useTrove({ env: { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES), STREAM_FLUSH_INTERVAL_MS: '100' } });
const api = trove.api;

const newKey = () => trove.keyFor(randomUUID(), ['admin']);

/** One request on a connection of its own (no client-side pooling), failed when unanswered within `timeoutMs`. */
function post(path: string, key: string, body: Buffer | string, headers: Record<string, string>, timeoutMs = 10_000) {
  const started = Date.now();
  const url = new URL(path, trove.baseUrl);
  return new Promise<{ status: number; body: any; ms: number }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { ...bearer(key), 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, ms: Date.now() - started }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to POST ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const NDJSON = { 'content-type': 'application/x-ndjson' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('hostile upload bodies through the gateway', () => {
  it("answers tenant A's random-bytes stream with a 4xx, and tenant B's next batch promptly, its record stored", async () => {
    const [a, b] = [await newKey(), await newKey()];
    for (let round = 0; round < 3; round++) {
      const rejected = await post('/api/v1/upload/noise/event/stream', a, randomBytes(200_000), NDJSON);
      expect(rejected.status).toBe(422);
      expect(rejected.body.detail[0].msg).toMatch(/binary, not NDJSON/);

      const name = `B's record ${round}`;
      const accepted = await post('/api/v1/upload/clean/event/batch', b, JSON.stringify({ records: [{ name }] }), JSON_TYPE, 5_000);
      expect(accepted.status).toBe(201);
      expect(accepted.ms).toBeLessThan(3_000);
      expect(accepted.body.summary).toMatchObject({ submitted: 1, accepted: 1 });
    }
    const stored = await api('GET', '/api/v1/records?collection=clean&limit=100', { headers: bearer(b) });
    expect(stored.body.items.map((r: { name: string }) => r.name).sort()).toEqual(["B's record 0", "B's record 1", "B's record 2"]);
  });

  it('answers 413 for a gzip bomb and a prompt 400 for broken deflate, on upload and JSON routes alike', async () => {
    const key = await newKey();
    const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20));
    const streamed = await post('/api/v1/upload/bomb/event/stream', key, bomb, { ...NDJSON, 'content-encoding': 'gzip' });
    expect(streamed.status).toBe(413);
    const batched = await post('/api/v1/upload/bomb/event/batch', key, bomb, { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect(batched.status).toBe(413);

    const broken = Buffer.from('not deflate at all');
    for (const path of ['/api/v1/upload/broken/event/stream', '/api/v1/upload/broken/event/batch', '/api/v1/records']) {
      const res = await post(path, key, broken, { ...JSON_TYPE, ...(path.endsWith('stream') ? NDJSON : {}), 'content-encoding': 'deflate' }, 5_000);
      expect({ path, status: res.status, detail: res.body.detail }).toEqual({
        path,
        status: 400,
        detail: 'The request body is not valid deflate data (Content-Encoding: deflate)',
      });
      expect(res.ms).toBeLessThan(3_000);
    }
    const good = await post('/api/v1/records', key, deflateSync(JSON.stringify({ name: 'zipped', collection: 'z', record_type: 't' })), {
      ...JSON_TYPE,
      'content-encoding': 'deflate',
    });
    expect(good.status).toBe(201);
  });
});
