import { createHash, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import pino from 'pino';
import { ERRORS } from './errors';
import { createServiceApp } from './http';
import { ByteMeter, guardBody } from './request-body';
import { listen, type RunningServer } from './server';

/**
 * guardBody on routes that read their own body, over real sockets, so the state of the connection after an answer is
 * observable: routes that answer before reading a byte of the body, and routes that read it to its end first.
 */
const MAX_BYTES = 64 * 1024;
let server: RunningServer;
let agent: Agent;

beforeAll(async () => {
  const opts = { maxBytes: () => MAX_BYTES, tooLarge: (max: number) => ERRORS.payloadTooLarge(`The body exceeds ${max} bytes`) };
  /** Reads the body to its end, then answers with its size. */
  const readAll = async (req: Request, res: Response) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    res.status(201).json({ bytes });
  };
  const app = createServiceApp({
    name: 'uploads',
    logger: pino({ level: 'silent' }),
    rawBodyPaths: [/^\/body\//],
    routes: (router) => {
      router.post('/body/early', guardBody(opts), (_req, res) => {
        res.status(422).json({ detail: 'refused before reading the body' });
      });
      router.post('/body/read', guardBody(opts), (req, res) => readAll(req, res));
      router.post('/body/identity', guardBody({ ...opts, encodings: ['identity'] }), (req, res) => readAll(req, res));
    },
  });
  server = await listen(app, 0, '127.0.0.1');
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
});
afterAll(async () => {
  agent.destroy();
  await server.close(1000);
});

interface Answer {
  status: number;
  body: any;
  ms: number;
  /** Whether the request went over a connection an earlier request used. */
  reused: boolean;
}

/** One request over the one kept-alive connection of `agent`. */
function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: 'POST', path, agent, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), ms: Date.now() - started, reused: req.reusedSocket }));
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to POST ${path} within 5 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw HTTP/1.1 connection: what the server sent so far, and whether it has closed its side. */
async function rawConnection() {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const state = { received: '' };
  socket.on('data', (c: Buffer) => (state.received += c.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  const write = (bytes: Buffer | string) => new Promise<void>((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve())));
  return { socket, state, ended, write };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('guardBody', () => {
  it('refuses an encoding the route does not read (415) and a declared length over the limit (413) before reading the body', async () => {
    const big = randomBytes(300_000);
    expect((await post('/body/read', big, { 'content-encoding': 'compress' })).status).toBe(415);
    expect((await post('/body/identity', 'x', { 'content-encoding': 'gzip' })).status).toBe(415);
    expect(await post('/body/read', big)).toMatchObject({ status: 413, body: { detail: `The body exceeds ${MAX_BYTES} bytes` } });
    expect(await post('/body/read', randomBytes(1000))).toMatchObject({ status: 201, body: { bytes: 1000 } });
  });

  it('serves the next request on the same connection promptly after an answer that left the body unread', async () => {
    const early: [string, string, Buffer, Record<string, string>, number][] = [
      ['unread body', '/body/early', randomBytes(60_000), {}, 422],
      ['unknown encoding', '/body/read', randomBytes(300_000), { 'content-encoding': 'compress' }, 415],
      ['declared too large', '/body/read', randomBytes(MAX_BYTES + 1), {}, 413],
    ];
    for (const [what, path, body, headers, status] of early) {
      const res = await post(path, body, headers);
      expect({ what, status: res.status }).toEqual({ what, status });
      const next = await post('/body/read', 'next');
      expect({ what, status: next.status, prompt: next.ms < 2_000, reused: next.reused }).toEqual({ what, status: 201, prompt: true, reused: true });
    }
  });

  it('answers a client that asked to close while it is still sending, keeping the connection open until the body is in', async () => {
    const body = randomBytes(60_000);
    const conn = await rawConnection();
    await conn.write(`POST /body/early HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
    await conn.write(body.subarray(0, 20_000));
    await until(() => /\r\n\r\n/.test(conn.state.received), 5_000);
    expect(conn.state.received).toMatch(/^HTTP\/1\.1 422 /);
    expect(conn.state.received).toMatch(/\r\nConnection: keep-alive\r\n/i);
    // The rest of the body still goes through (a reset would fail these writes), and then the server closes.
    for (let at = 20_000; at < body.length; at += 10_000) await conn.write(body.subarray(at, at + 10_000));
    await conn.ended;
    expect(conn.state.received).toMatch(/refused before reading the body/);
    conn.socket.destroy();
  });

  it('answers a client that asked to close after its whole body was read as it asked: Connection: close, then closed', async () => {
    const body = randomBytes(50_000);
    const conn = await rawConnection();
    // The body is still coming when the guard runs.
    await conn.write(`POST /body/read HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
    await conn.write(body.subarray(0, 10_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await conn.write(body.subarray(10_000));
    await conn.ended;
    expect(conn.state.received).toMatch(/^HTTP\/1\.1 201 /);
    expect(conn.state.received).toMatch(/\r\nConnection: close\r\n/i);
    expect(conn.state.received).toMatch(/\{"bytes":50000\}$/);
    conn.socket.destroy();
  });
});

describe('ByteMeter', () => {
  /** The bytes that come out of `meter` when `chunks` go in, and how it ended. */
  async function through(meter: ByteMeter, chunks: string[]): Promise<{ out: string; error?: Error }> {
    const out: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        out.push(chunk);
        cb();
      },
    });
    try {
      await pipeline(Readable.from(chunks.map((c) => Buffer.from(c))), meter, sink);
      return { out: Buffer.concat(out).toString() };
    } catch (error) {
      return { out: Buffer.concat(out).toString(), error: error as Error };
    }
  }

  it('passes the bytes on as they are and hashes them', async () => {
    const meter = new ByteMeter(11, () => new Error('too large'));
    expect(await through(meter, ['hello ', 'world'])).toEqual({ out: 'hello world' });
    expect(meter.digest()).toBe(`sha256:${createHash('sha256').update('hello world').digest('hex')}`);
  });

  it('fails with its error as soon as more than the limit has come, passing nothing of the chunk that crossed it', async () => {
    const meter = new ByteMeter(8, () => new Error('more than 8 bytes'));
    const result = await through(meter, ['hello ', 'world', 'again']);
    expect(result.out).toBe('hello ');
    expect(result.error?.message).toBe('more than 8 bytes');
  });
});
