import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the test server received, its body read whole. */
export interface Received {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: Received, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on a free loopback port: each request is read whole, recorded, then answered by `handler`.
 */
export async function startServer(handler: Handler): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const req = { method: raw.method!, url: raw.url!, headers: raw.headers, body: Buffer.concat(chunks) };
    received.push(req);
    try {
      await handler(req, res);
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status and headers. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Starts servers for the tests of the file that calls it, each closed after the test that started it. */
export function useServers(): (handler: Handler) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (handler) => {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  };
}
