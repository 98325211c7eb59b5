import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from './client';
import { HttpError } from './errors';
import { createServiceApp } from './http';
import { createLogger } from './logger';
import { IDENTITY_HEADER, verifyIdentity, type Identity } from './identity';

const SECRET = 'internal-secret-of-at-least-32-characters!';
const user: Identity = { tenantId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', principal: 'key:abc', scopes: ['upload'] };

let server: Server;
let url: string;
const seen: Array<Identity | undefined> = [];

beforeAll(async () => {
  // /status/<n> answers n; everything else 200 with what it got.
  server = createServer((req, res) => {
    seen.push(verifyIdentity(req.headers[IDENTITY_HEADER] as string, SECRET));
    const status = /^\/status\/(\d{3})$/.exec(req.url!)?.[1];
    res.writeHead(status ? Number(status) : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: `answered ${status ?? 200}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const clientOf = (target = url) => new ServiceClient({ service: 'records', caller: 'ingestion', target, internalTokenSecret: SECRET, timeoutMs: 2_000 });

async function statusOf(client: ServiceClient, path: string): Promise<number> {
  try {
    return (await client.request({ method: 'GET', path, identity: user })).status;
  } catch (err) {
    if (err instanceof HttpError) return err.status;
    throw err;
  }
}

describe('ServiceClient', () => {
  it("signs the user's identity and names itself as the caller", async () => {
    const client = clientOf();
    expect(await statusOf(client, '/anything')).toBe(200);
    client.shutdown();

    expect(seen[seen.length - 1]).toEqual({ ...user, plan: undefined, caller: 'ingestion' });
  });

  it("does not open its breaker on the upstream's answers to bad calls (4xx and 500)", async () => {
    const client = clientOf();
    for (let i = 0; i < 6; i++) {
      expect(await statusOf(client, '/status/500')).toBe(503);
      expect(await statusOf(client, '/status/422')).toBe(422);
    }
    expect(client.isOpen).toBe(false);
    expect(await statusOf(client, '/fine')).toBe(200);
    client.shutdown();
  });

  it('opens its breaker when the upstream says it is unavailable (502, 503, 504)', async () => {
    const client = clientOf();
    for (const status of [502, 503, 504, 503, 502, 504]) await statusOf(client, `/status/${status}`);
    expect(client.isOpen).toBe(true);
    const before = seen.length;
    expect(await statusOf(client, '/fine')).toBe(503);
    expect(seen.length).toBe(before);
    client.shutdown();
  });

  it('opens its breaker when the upstream is down', async () => {
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as AddressInfo).port;
    await new Promise((resolve) => down.close(resolve));
    const client = clientOf(`http://127.0.0.1:${port}`);
    for (let i = 0; i < 6; i++) expect(await statusOf(client, '/x')).toBe(503);
    expect(client.isOpen).toBe(true);
    client.shutdown();
  });
});

describe('ServiceClient to a service of this process', () => {
  // The service's own app: its identity check and body parser, reached without a socket.
  const app = createServiceApp({
    name: 'records',
    logger: createLogger({ level: 'silent', name: 'records' }),
    internalTokenSecret: SECRET,
    routes: (router) => {
      router.post('/echo', (req, res) => {
        res.json({ identity: req.identity, body: req.body as unknown, requestId: req.id });
      });
      router.get('/status/:status', (req, res) => {
        res.status(Number(req.params.status)).json({ detail: `answered ${req.params.status}` });
      });
      router.get('/silent', () => undefined);
    },
  });
  const inProcess = (target: () => typeof app | undefined = () => app, timeoutMs = 2_000) =>
    new ServiceClient({ service: 'records', caller: 'ingestion', target, internalTokenSecret: SECRET, timeoutMs });

  it("reaches the service's app with the identity its own middleware verified, and the JSON body its parser read", async () => {
    const client = inProcess();
    const res = await client.request<{ identity: Identity; body: unknown; requestId: string }>({
      method: 'POST',
      path: '/echo',
      identity: user,
      body: { name: 'M8 bolt' },
      requestId: 'req-1',
    });
    client.shutdown();

    expect(res).toEqual({ status: 200, body: { identity: { ...user, caller: 'ingestion' }, body: { name: 'M8 bolt' }, requestId: 'req-1' } });
  });

  it('answers 503 naming the service while it is not running in this process, and reaches it once it is', async () => {
    let started: typeof app | undefined;
    const client = inProcess(() => started);
    await expect(client.request({ method: 'POST', path: '/echo', identity: user })).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('records'),
    });
    started = app;
    expect(await statusOf(client, '/status/204')).toBe(204);
    client.shutdown();
  });

  it("counts the service's 502, 503 and 504 against its breaker, not its 4xx and 500", async () => {
    const client = inProcess();
    for (let i = 0; i < 6; i++) {
      expect(await statusOf(client, '/status/500')).toBe(503);
      expect(await statusOf(client, '/status/404')).toBe(404);
    }
    expect(client.isOpen).toBe(false);
    client.shutdown();

    const unavailable = inProcess();
    for (const status of [502, 503, 504, 503, 502, 504]) expect(await statusOf(unavailable, `/status/${status}`)).toBe(503);
    expect(unavailable.isOpen).toBe(true);
    unavailable.shutdown();
  });

  it('gives up on a call the service does not answer within its timeout, with a 503', async () => {
    const client = inProcess(() => app, 300);
    const started = Date.now();
    expect(await statusOf(client, '/silent')).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
    client.shutdown();
  });
});
