import { createServer, request as httpRequest, type Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from '@trove/platform';
import { startTestSystem, type TestService } from '@trove/testing';
import { authModule } from '@trove/auth-service';
import { gatewayModule } from '../src';

/** A port nothing listens on: an upstream that is down. */
export async function closedPort(): Promise<number> {
  const server = await listen((_req, res) => res.end(), 0, '127.0.0.1');
  await server.close();
  return server.port;
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
}

/**
 * A stand-in upstream service that records what reached it. Paths ending in /fail answer 500; paths ending in
 * /die start a response and drop the connection half-way.
 */
export async function startRecordingUpstream(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, bodyBytes });
      const path = req.url!.split('?')[0]!;
      if (path.endsWith('/die')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      const failing = path.endsWith('/fail');
      res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(failing ? { detail: 'upstream failed' } : { ok: true, bodyBytes }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Stack {
  auth: TestService;
  gateway: TestService;
  /** Another gateway on the same database, with an event bus and a cache of its own. */
  startGateway(config?: Record<string, string>): Promise<TestService>;
  stop(): Promise<void>;
}

/**
 * The real auth service listening on a free port, and a gateway (in development) in front of it on the same
 * database; `gatewayConfig` is the gateway's, and any gateway's started later (the upstreams it proxies to).
 */
export async function startStack(gatewayConfig: Record<string, string> = {}): Promise<Stack> {
  const sys = await startTestSystem([authModule, gatewayModule], { listen: ['auth'], config: { API_KEY_SALT: 'gateway-tests-api-key-salt' }, configOf: { gateway: { ENV: 'development', ...gatewayConfig } } });
  return {
    auth: sys.service('auth'),
    gateway: sys.service('gateway'),
    startGateway: (config = {}) => sys.replica(gatewayModule, config),
    stop: () => sys.stop(),
  };
}

export const devTenant = (tenantId: string) => ({ 'X-Tenant-Id': tenantId });
export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export async function eventually(probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One request over the given agent, the body sent as given; rejects when no answer arrives within `timeoutMs`. */
export function requestOver(
  agent: Agent,
  port: number,
  request: { method: string; path: string; headers: Record<string, string>; body?: Buffer | string },
  timeoutMs = 5_000,
): Promise<{ status: number; body: unknown }> {
  const { method, path, headers, body } = request;
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method,
      agent,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to ${method} ${path} within ${timeoutMs} ms`)));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
