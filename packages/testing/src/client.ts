import request, { type Test } from 'supertest';
import type { Scope, ServiceName } from '@trove/platform';
import type { TestService } from './service';

export interface TestClientOptions {
  /** The identity's principal (`test:<tenant>` by default; the Open API's callers are `anonymous`). */
  principal?: string;
  /** The tenant's plan, as the gateway would state it; without one, services read the self-hosted default. */
  plan?: string;
  /** Signs calls to /internal/ routes as this service's ServiceClient would: only another service may call those. */
  internalCaller?: ServiceName;
  /** Headers sent with every request besides the identity (the X-Forwarded-For a gateway adds, say). */
  headers?: Record<string, string>;
}

/** supertest requests to one service as one tenant; send a body by giving one. */
export interface TestClient {
  get(path: string): Test;
  post(path: string, body?: unknown): Test;
  put(path: string, body?: unknown): Test;
  patch(path: string, body?: unknown): Test;
  delete(path: string): Test;
}

/**
 * Requests to a service's app acting for one tenant with some scopes, as the gateway would forward them, each signed
 * afresh. `service` may be a function answering the service of the moment (one that a test restarts).
 */
export function testClient(service: TestService | (() => TestService), tenantId: string, scopes: Scope[], opts: TestClientOptions = {}): TestClient {
  const call = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: unknown) => {
    const svc = typeof service === 'function' ? service() : service;
    const caller = opts.internalCaller && path.startsWith('/internal/') ? opts.internalCaller : undefined;
    const r = request(svc.instance.app)[method](path).set({ ...svc.as(tenantId, scopes, opts.principal, caller, opts.plan), ...opts.headers });
    return body === undefined ? r : r.send(body as object);
  };
  return {
    get: (path) => call('get', path),
    post: (path, body) => call('post', path, body),
    put: (path, body) => call('put', path, body),
    patch: (path, body) => call('patch', path, body),
    delete: (path) => call('delete', path),
  };
}
