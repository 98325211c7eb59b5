import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { IDENTITY_HEADER, signIdentity } from '@trove/platform';
import type { TestService } from '@trove/testing';

/**
 * A person signed in to the portal, as the gateway forwards a portal JWT: principal `user:<id>`, scope admin, and the
 * tenant's plan when one is given. Signed afresh for every request.
 */
export function portalClient(svc: TestService, tenantId: string, plan?: string) {
  const identity = { tenantId, principal: `user:${randomUUID()}`, scopes: ['admin' as const], ...(plan ? { plan } : {}) };
  const headers = () => ({ [IDENTITY_HEADER]: signIdentity(identity, svc.ctx.config.INTERNAL_TOKEN_SECRET, 3600) });
  const app = svc.instance.app;
  return {
    get: (path: string) => request(app).get(path).set(headers()),
    post: (path: string, body?: unknown) => {
      const r = request(app).post(path).set(headers());
      return body === undefined ? r : r.send(body as object);
    },
    patch: (path: string, body?: unknown) => {
      const r = request(app).patch(path).set(headers());
      return body === undefined ? r : r.send(body as object);
    },
    delete: (path: string) => request(app).delete(path).set(headers()),
  };
}

export type PortalClient = ReturnType<typeof portalClient>;
