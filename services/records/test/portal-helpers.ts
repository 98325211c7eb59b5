import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, recordChangedEvent } from '@trove/contracts';
import type { Subscription } from '@trove/bus';
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

/**
 * Plays search's side of the indexing contract: acknowledges every records.changed version as indexed, as search
 * does once the change is in its indexes, so writes answer `indexed`.
 */
export function acknowledgeEverything(svc: TestService): Promise<Subscription> {
  return svc.bus.subscribe({
    group: `test.acker.${randomUUID()}`,
    topics: [TOPICS.recordsChanged],
    handler: async (events) => {
      const acks = events
        .map((e) => recordChangedEvent.parse(e.payload))
        .map((e) => ({ topic: TOPICS.recordsIndexed, key: e.record_id, payload: { tenant_id: e.tenant_id, record_id: e.record_id, version: e.version, status: 'indexed' } }));
      await svc.bus.publish(acks);
    },
  });
}
