import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { closedPort, devTenant, requestOver, startStack, type Stack } from './support';

/**
 * A stand-in service. /status/<n> answers n once it has read the body. /refuse reads the first chunk of its body,
 * stops reading and answers 400 at once, as a service does that gives up on a malformed upload: the rest of that
 * body stays unread on the connection. /headers answers the Connection and X-Hop headers it got. Anything else answers 200 with the size of the body it read.
 */
function stub(req: IncomingMessage, res: ServerResponse): void {
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.url!.endsWith('/refuse')) {
    req.once('data', () => {
      req.pause();
      json(400, { detail: 'Malformed upload' });
    });
    return;
  }
  let bodyBytes = 0;
  req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
  req.on('end', () => {
    const status = /\/status\/(\d{3})$/.exec(req.url!)?.[1];
    if (req.url!.endsWith('/headers')) return json(200, { connection: req.headers.connection ?? null, hop: req.headers['x-hop'] ?? null });
    json(status ? Number(status) : 200, status ? { detail: `answered ${status}` } : { ok: true, url: req.url, bodyBytes });
  });
}

const service = createServer(stub);
const hits: string[] = [];
service.on('request', (req: IncomingMessage) => hits.push(req.url!));
let serviceUrl: string;
let stack: Stack;

beforeAll(async () => {
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  stack = await startStack({ INGESTION_URL: serviceUrl, SEARCH_URL: serviceUrl });
});
afterAll(async () => {
  await stack?.stop();
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
});

describe('circuit breakers', () => {
  it("stay closed while a service answers one tenant's bad requests with 4xx and 500", async () => {
    const gw = request((await stack.startGateway()).instance.app);
    const tenantA = devTenant(randomUUID());
    for (let i = 0; i < 6; i++) expect((await gw.post('/api/v1/upload/a/t/status/500').set(tenantA).send({ records: [{}] })).status).toBe(500);
    for (let i = 0; i < 6; i++) expect((await gw.post('/api/v1/upload/a/t/status/422').set(tenantA).send({ records: [{}] })).status).toBe(422);
    for (let i = 0; i < 6; i++) expect((await gw.get('/api/v1/uploads/status/404').set(tenantA)).status).toBe(404);
    const valid = await gw.post('/api/v1/upload/b/t/batch').set(devTenant(randomUUID())).send({ records: [{ name: 'x' }] });
    expect(valid.status).toBe(200);
    expect(valid.body).toMatchObject({ ok: true, url: '/upload/b/t/batch' });
  });

  it('open when a service says it is unavailable (502, 503, 504), and then spare it the requests', async () => {
    const gw = request((await stack.startGateway()).instance.app);
    const tenant = devTenant(randomUUID());
    for (const status of [502, 503, 504, 503, 502, 504]) await gw.post(`/api/v1/search/status/${status}`).set(tenant).send({});
    const before = hits.length;
    const res = await gw.post('/api/v1/search/parts').set(tenant).send({ query: 'x' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'The search service is unavailable; try again shortly' });
    expect(hits.length).toBe(before);
  });

  it('open when a service is down', async () => {
    const gw = request((await stack.startGateway({ SEARCH_URL: `http://127.0.0.1:${await closedPort()}` })).instance.app);
    for (let i = 0; i < 6; i++) expect((await gw.post('/api/v1/search/parts').set(devTenant(randomUUID())).send({})).status).toBe(503);
    const gwAfterRestart = await stack.startGateway({ SEARCH_URL: serviceUrl });
    expect((await request(gwAfterRestart.instance.app).post('/api/v1/search/parts').set(devTenant(randomUUID())).send({})).status).toBe(200);
  });
});

describe('hop-by-hop headers', () => {
  it("are not passed on to the service: a client's Connection: close does not close the gateway's pooled connection", async () => {
    const gw = request((await stack.startGateway()).instance.app);
    const res = await gw.post('/api/v1/upload/a/t/headers').set(devTenant(randomUUID())).set('Connection', 'close, x-hop').set('X-Hop', 'only for the next hop').send({ records: [] });
    expect(res.status).toBe(200);
    expect(res.body.hop).toBeNull();
    expect(res.body.connection ?? 'keep-alive').not.toMatch(/close/i);
  });
});

describe('connections to a service after it refused a request early', () => {
  let server: Server;
  let port: number;
  const agents: Agent[] = [];
  /** A client with a keep-alive connection of its own, as another tenant's process would be. */
  const client = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return (path: string, body: Buffer | string, type: string) =>
      requestOver(agent, port, { method: 'POST', path, body, headers: { ...devTenant(randomUUID()), 'content-type': type } }, 3_000);
  };

  beforeAll(async () => {
    server = (await stack.startGateway()).instance.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("answer the next tenant's request promptly and correctly", async () => {
    for (let round = 0; round < 3; round++) {
      const refused = await client()('/api/v1/upload/a/t/refuse', randomBytes(200 * 1024), 'application/x-ndjson');
      expect(refused).toEqual({ status: 400, body: { detail: 'Malformed upload' } });
      // Time for the gateway to finish sending the refused body, after which it used to pool that connection.
      await new Promise((resolve) => setTimeout(resolve, 100));

      const records = JSON.stringify({ records: [{ name: `bolt ${round}` }] });
      const next = await client()('/api/v1/upload/b/t/batch', records, 'application/json');
      expect(next).toEqual({ status: 200, body: { ok: true, url: '/upload/b/t/batch', bodyBytes: Buffer.byteLength(records) } });
    }
  });

  it('let the refused client send its next request on the same connection', async () => {
    const post = client();
    expect(await post('/api/v1/upload/a/t/refuse', randomBytes(200 * 1024), 'application/x-ndjson')).toMatchObject({ status: 400 });
    expect(await post('/api/v1/upload/b/t/batch', '{"records":[]}', 'application/json')).toMatchObject({ status: 200, body: { bodyBytes: 14 } });
  });
});
