import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import pino from 'pino';
import { decodedBody } from './body';
import { HttpError } from './errors';
import { createServiceApp } from './http';
import { listen, type RunningServer } from './server';

/** A service app as every service builds it, with the JSON limit of 1 KB: what its JSON routes answer to encoded bodies. */
let server: RunningServer;

beforeAll(async () => {
  const app = createServiceApp({
    name: 'records',
    logger: pino({ level: 'silent' }),
    jsonLimit: '1kb',
    routes: (router) => router.post('/items', (req, res) => res.status(201).json(req.body)),
  });
  server = await listen(app, 0, '127.0.0.1');
});
afterAll(() => server.close(1000));

function post(body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/items',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), ms: Date.now() - started }));
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('JSON bodies with a Content-Encoding', () => {
  it('reads gzip, deflate and br bodies', async () => {
    for (const encode of [gzipSync, deflateSync, brotliCompressSync]) {
      const res = await post(encode('{"name": "bolt"}'), { 'content-encoding': encode === gzipSync ? 'gzip' : encode === deflateSync ? 'deflate' : 'br' });
      expect(res).toMatchObject({ status: 201, body: { name: 'bolt' } });
    }
  });

  it('answers 413 for a body that inflates past the limit, however small it is compressed', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    const res = await post(bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('Request body exceeds the limit of 1024 bytes once inflated (Content-Encoding: gzip)');
  });

  it('answers a prompt 400 naming the encoding for a body that is not valid data of it', async () => {
    const cases: [string, Buffer][] = [
      ['deflate', Buffer.from('not deflate at all')],
      ['deflate', deflateSync('{"name": "bolt"}').subarray(0, 5)],
      ['gzip', Buffer.from('not gzip either')],
      ['br', Buffer.from('garbage')],
    ];
    for (const [encoding, body] of cases) {
      const res = await post(body, { 'content-encoding': encoding });
      expect(res).toMatchObject({ status: 400, body: { detail: `The request body is not valid ${encoding} data (Content-Encoding: ${encoding})` } });
      expect(res.ms).toBeLessThan(2_000);
    }
  });

  it('answers 415 for any other encoding', async () => {
    for (const encoding of ['compress', 'zstd', 'gzip, br']) {
      const res = await post('{}', { 'content-encoding': encoding });
      expect(res.status).toBe(415);
      expect(res.body.detail).toBe(
        `Content-Encoding '${encoding}' is not supported for this request body; send it uncompressed or as gzip, deflate, br`,
      );
    }
  });
});

describe('decodedBody', () => {
  const read = async (stream: Readable) => {
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  it('inflates the body as it streams, and passes an identity body through', async () => {
    expect(await read(decodedBody(Readable.from([gzipSync('hello')]), 'gzip'))).toBe('hello');
    expect(await read(decodedBody(Readable.from([Buffer.from('plain')]), 'identity'))).toBe('plain');
  });

  it('fails with a 400 on bytes that are not of the encoding, and on a body cut off in its compressed data', async () => {
    for (const bytes of [Buffer.from('nope'), gzipSync('x'.repeat(1000)).subarray(0, 20)]) {
      const failed = await read(decodedBody(Readable.from([bytes]), 'gzip')).catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(HttpError);
      expect(failed).toMatchObject({ status: 400, detail: 'The request body is not valid gzip data (Content-Encoding: gzip)' });
    }
  });
});
