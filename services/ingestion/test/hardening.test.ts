import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { listen, type RunningServer } from '@trove/platform';
import type { TestService } from '@trove/testing';
import { as, countOf, eventually, newTenant, recordsOf, startSystem, type System } from './helpers';

/**
 * Hostile bodies (binary, compressed, bombs, broken compression, pathological lines) and what the next request on the
 * same connection sees. Requests go over a real socket so the connection's state after an answer is observable.
 */

const UPLOAD_MAX_BYTES = 4 * 1024 * 1024;
let system: System;
let server: RunningServer;
let agent: Agent;

beforeAll(async () => {
  system = await startSystem({ STREAM_FLUSH_INTERVAL_MS: '100', UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
  server = await listen(system.ingestion.instance.app, 0, '127.0.0.1');
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
});
afterAll(async () => {
  agent.destroy();
  await server.close(1000);
  await system.stop();
});

interface Answer {
  status: number;
  body: any;
  ms: number;
}

/** One request over `via` (one kept-alive connection unless said), answered within `timeoutMs` or failed. */
function send(
  tenant: string,
  path: string,
  body: Buffer | string,
  headers: Record<string, string>,
  opts: { via?: Agent; timeoutMs?: number; to?: { svc: TestService; port: number } } = {},
): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: opts.to?.port ?? server.port,
        method: 'POST',
        path,
        agent: opts.via ?? agent,
        headers: { ...(opts.to?.svc ?? system.ingestion).as(tenant, ['upload']), 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, ms: Date.now() - started });
        });
      },
    );
    req.setTimeout(opts.timeoutMs ?? 5_000, () => req.destroy(new Error(`no answer to POST ${path} within ${opts.timeoutMs ?? 5_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const NDJSON = { 'content-type': 'application/x-ndjson' };
const JSON_TYPE = { 'content-type': 'application/json' };
const stream = (collection: string) => `/upload/${collection}/event/stream`;
const batch = (collection: string) => `/upload/${collection}/event/batch`;
const lines = (...objects: unknown[]) => objects.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n') + '\n';

describe('a body that is not text', () => {
  it('answers 422 for 14 binary bytes sent to the stream, and adds nothing', async () => {
    const tenant = newTenant();
    const res = await send(tenant, stream('bin'), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]), NDJSON);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], msg: expect.stringMatching(/binary, not NDJSON/) });
    const next = await send(tenant, stream('bin'), lines({ name: 'after' }), NDJSON);
    expect(next.body).toEqual({ accepted: 1, parse_errors: 0, buffer_size: 1, flushed: false });
  });

  it('answers 422 for 200 KB of random bytes, and the next request on the connection is answered at once', async () => {
    const tenant = newTenant();
    const res = await send(tenant, stream('random'), randomBytes(200_000), NDJSON);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/binary/);
    const next = await send(newTenant(), batch('after-random'), JSON.stringify({ records: [{ name: 'b' }] }), JSON_TYPE);
    expect(next.status).toBe(201);
    expect(next.ms).toBeLessThan(2_000);
  });
});

describe('compressed bodies', () => {
  const BOMB = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));

  it('reads gzip, deflate and br bodies on the stream and batch routes', async () => {
    const tenant = newTenant();
    const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [encoding, encode] of Object.entries(encoders)) {
      const streamed = await send(tenant, stream('zipped'), encode(lines({ name: `s-${encoding}` })), { ...NDJSON, 'content-encoding': encoding });
      expect(streamed.body).toMatchObject({ accepted: 1, parse_errors: 0 });
      const body = encode(JSON.stringify({ records: [{ name: `b-${encoding}` }] }));
      const batched = await send(tenant, batch('zipped'), body, { ...JSON_TYPE, 'content-encoding': encoding });
      expect(batched.status).toBe(201);
      expect(batched.body.summary.accepted).toBe(1);
    }
    await eventually(async () => expect(await countOf(system, tenant, 'zipped')).toBe(6));
  });

  it('signs and hashes a compressed webhook body as it was before compression', async () => {
    const secret = 'webhook-secret-for-compressed-bodies';
    const svc = await system.startIngestion({ WEBHOOK_SECRET: secret });
    const own = await listen(svc.instance.app, 0, '127.0.0.1');
    try {
      const json = JSON.stringify({ records: [{ name: 'pushed' }] });
      const signature = `sha256=${createHmac('sha256', secret).update(json).digest('hex')}`;
      const headers = { ...JSON_TYPE, 'content-encoding': 'gzip', 'x-webhook-signature': signature };
      const res = await send(newTenant(), '/webhooks/upload/pushed/event', gzipSync(json), headers, { via: new Agent(), to: { svc, port: own.port } });
      expect(res.status).toBe(201);
      expect(res.body.metadata.file_hash).toBe(`sha256:${createHash('sha256').update(json).digest('hex')}`);
    } finally {
      await own.close(1000);
    }
  });

  it('answers 413 for a gzip body that inflates past the route limit, counting the inflated bytes', async () => {
    expect(BOMB.length).toBeLessThan(UPLOAD_MAX_BYTES);
    const tenant = newTenant();
    const streamed = await send(tenant, stream('bomb'), BOMB, { ...NDJSON, 'content-encoding': 'gzip' });
    expect(streamed.status).toBe(413);
    expect(streamed.body.detail).toMatch(`limit of ${UPLOAD_MAX_BYTES} bytes`);
    const batched = await send(tenant, batch('bomb'), BOMB, { ...JSON_TYPE, 'content-encoding': 'gzip' });
    expect(batched.status).toBe(413);
    expect(batched.body.detail).toMatch(/exceeds the limit of \d+ bytes once inflated \(Content-Encoding: gzip\)/);
  });

  it('answers 415 for an encoding it does not read, and for a compressed multipart form', async () => {
    const tenant = newTenant();
    for (const path of [stream('enc'), batch('enc'), '/webhooks/upload/enc/event']) {
      const res = await send(tenant, path, 'x', { ...JSON_TYPE, ...NDJSON, 'content-encoding': 'compress' });
      expect(res.status).toBe(415);
      expect(res.body.detail).toMatch(/Content-Encoding 'compress' is not supported.*gzip, deflate, br/);
    }
    const form = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.ndjson"\r\n\r\n${lines({ name: 'x' })}\r\n--b--\r\n`;
    const upload = await send(tenant, '/upload/enc/event/upload', gzipSync(form), {
      'content-type': 'multipart/form-data; boundary=b',
      'content-encoding': 'gzip',
    });
    expect(upload.status).toBe(415);
    expect(upload.body.detail).toMatch(/send it uncompressed$/);
  });

  it('answers a prompt 400 for a body that is not what its Content-Encoding says', async () => {
    const tenant = newTenant();
    const broken = Buffer.concat([deflateSync(lines({ name: 'x' })).subarray(0, 6), Buffer.from('not deflate at all')]);
    for (const [path, type] of [
      [stream('broken'), NDJSON],
      [batch('broken'), JSON_TYPE],
      ['/webhooks/upload/broken/event', JSON_TYPE],
    ] as const) {
      for (const [encoding, body] of [
        ['deflate', Buffer.from('not deflate at all')],
        ['deflate', broken],
        ['gzip', gzipSync('{"records": []}').subarray(0, 12)],
        ['br', Buffer.from('garbage')],
      ] as const) {
        const res = await send(tenant, path, body, { ...type, 'content-encoding': encoding });
        expect({ path, encoding, status: res.status, detail: res.body.detail }).toEqual({
          path,
          encoding,
          status: 400,
          detail: `The request body is not valid ${encoding} data (Content-Encoding: ${encoding})`,
        });
        expect(res.ms).toBeLessThan(2_000);
      }
    }
  });
});

describe('pathological NDJSON lines', () => {
  const deep = `{"name": "deep", "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;

  it('stores a healthy line sent after a line nested 100,000 levels deep, in a later request or the same one', async () => {
    const tenant = newTenant();
    const first = await send(tenant, stream('deep'), `${deep}\n`, NDJSON);
    expect(first.body).toEqual({ accepted: 0, parse_errors: 1, buffer_size: 0, flushed: false });
    const second = await send(tenant, stream('deep'), lines({ name: 'healthy' }), NDJSON);
    expect(second.body).toEqual({ accepted: 1, parse_errors: 0, buffer_size: 1, flushed: false });
    const same = await send(tenant, stream('deep'), `${deep}\n${lines({ name: 'healthy too' })}`, NDJSON);
    expect(same.body).toMatchObject({ accepted: 1, parse_errors: 1 });
    await eventually(async () => expect((await recordsOf(system, tenant, 'deep')).map((r) => r.name)).toEqual(['healthy', 'healthy too']));
  });

  it('makes the deep line a dead letter of its own naming the depth rule', async () => {
    const svc = await system.startIngestion({ INGEST_CHUNK_SIZE: '2', STREAM_FLUSH_INTERVAL_MS: '600000' });
    const tenant = newTenant();
    const res = await as(svc, tenant).post(stream('deep-letter')).set(NDJSON).send(`${deep}\n${lines({ name: 'a' }, { name: 'b' })}`);
    expect(res.body).toEqual({ accepted: 2, parse_errors: 1, buffer_size: 0, flushed: true });
    const errors = await as(svc, tenant).get(`/uploads/${res.headers['x-upload-id']}/errors`);
    expect(errors.body).toEqual([{ record_index: 0, error: expect.stringMatching(/nested more than 32 levels/), record_data: expect.any(Object) }]);
    expect((await recordsOf(system, tenant, 'deep-letter')).map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('reports a stream line over 1 MB as a parse error of its own and accepts the lines around it', async () => {
    const tenant = newTenant();
    const long = JSON.stringify({ name: 'long', text: 'z'.repeat(1024 * 1024) });
    const res = await send(tenant, stream('long'), `${lines({ name: 'before' })}${long}\n${lines({ name: 'after' })}`, NDJSON);
    expect(res.body).toEqual({ accepted: 2, parse_errors: 1, buffer_size: 2, flushed: false });
  });
});

describe('the connection after an early answer', () => {
  it('serves the next request on the same connection promptly after each kind of early answer', async () => {
    const big = randomBytes(300_000);
    const early: [string, string, Buffer | string, Record<string, string>, number][] = [
      ['binary stream', stream('early'), big, NDJSON, 422],
      ['unsupported media type', stream('early'), big, JSON_TYPE, 415],
      ['unknown encoding', batch('early'), big, { ...JSON_TYPE, 'content-encoding': 'compress' }, 415],
      ['broken deflate', stream('early'), big, { ...NDJSON, 'content-encoding': 'deflate' }, 400],
      ['declared too large', stream('early'), randomBytes(UPLOAD_MAX_BYTES + 1), NDJSON, 413],
    ];
    for (const [what, path, body, headers, status] of early) {
      const res = await send(newTenant(), path, body, headers);
      expect({ what, status: res.status }).toEqual({ what, status });
      const next = await send(newTenant(), batch('early-next'), JSON.stringify({ records: [{ name: what }] }), JSON_TYPE);
      expect({ what, status: next.status, prompt: next.ms < 2_000 }).toEqual({ what, status: 201, prompt: true });
    }
  });

  it('answers a client that asked to close the connection while it is still sending, and closes once the body is in', async () => {
    const body = randomBytes(300_000);
    const socket = connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    const headers = { ...system.ingestion.as(newTenant(), ['upload']), ...NDJSON, connection: 'close', 'content-length': String(body.length) };
    socket.write(`POST ${stream('closing')} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    socket.write(body.subarray(0, 100_000));
    await eventually(async () => expect(received).toMatch(/^HTTP\/1\.1 422 /), 5_000);
    // The rest of the body still goes through (a reset would fail these writes), and then the server closes.
    for (let at = 100_000; at < body.length; at += 50_000) {
      await new Promise<void>((resolve, reject) => socket.write(body.subarray(at, at + 50_000), (err) => (err ? reject(err) : resolve())));
    }
    await ended;
    expect(received).toMatch(/binary, not NDJSON/);
    socket.destroy();
  });

  it('serves the next request promptly after a stream request refused for carrying more records than the buffer holds', async () => {
    const svc = await system.startIngestion({ STREAM_BUFFER_LIMIT: '10', UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
    const own = await listen(svc.instance.app, 0, '127.0.0.1');
    const one = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = lines(...Array.from({ length: 20_000 }, (_, i) => ({ name: `r${i}` })));
      const at = (path: string, payload: string, headers: Record<string, string>) =>
        new Promise<Answer>((resolve, reject) => {
          const started = Date.now();
          const req = httpRequest(
            { host: '127.0.0.1', port: own.port, method: 'POST', path, agent: one, headers: { ...svc.as(newTenant(), ['upload']), ...headers } },
            (res) => {
              let text = '';
              res.on('data', (c) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), ms: Date.now() - started }));
            },
          );
          req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${path}`)));
          req.on('error', reject);
          req.end(payload);
        });
      expect((await at(stream('full'), body, NDJSON)).status).toBe(429);
      const next = await at(batch('full-next'), JSON.stringify({ records: [{ name: 'n' }] }), JSON_TYPE);
      expect(next.status).toBe(201);
    } finally {
      one.destroy();
      await own.close(1000);
    }
  });
});
