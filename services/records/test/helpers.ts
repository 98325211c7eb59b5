import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { TOPICS, recordChangedEvent, type RecordChangedEvent } from '@trove/contracts';
import type { Subscription } from '@trove/bus';
import type { Database } from '@trove/db';
import type { Scope } from '@trove/platform';
import { startTestService, type TestService } from '@trove/testing';
import { recordsModule } from '../src';

export interface Harness {
  svc: TestService;
  /** A supertest agent acting for a tenant with the given scopes (records by default), on `plan` when given. */
  as(tenantId: string, scopes?: Scope[], plan?: string): Client;
  /** Every records.changed event seen since the harness started, parsed with the contract. */
  changes: RecordChangedEvent[];
  /** Waits until `predicate` holds for the events seen so far. */
  waitForChanges(predicate: (events: RecordChangedEvent[]) => boolean, timeoutMs?: number): Promise<RecordChangedEvent[]>;
  stop(): Promise<void>;
}

export type Client = ReturnType<typeof client>;

/**
 * Signs a fresh identity for every request, as the gateway does, so long test files never outlive a token. Calls to
 * /internal routes are signed as ingestion's ServiceClient signs them: only another service may call those.
 */
function client(svc: TestService, tenantId: string, scopes: Scope[], plan?: string) {
  const app = svc.instance.app;
  const headers = (path: string) => svc.as(tenantId, scopes, undefined, path.startsWith('/internal/') ? 'ingestion' : undefined, plan);
  return {
    get: (path: string) => request(app).get(path).set(headers(path)),
    post: (path: string, body?: unknown) => {
      const r = request(app).post(path).set(headers(path));
      return body === undefined ? r : r.send(body as object);
    },
    patch: (path: string, body?: unknown) => {
      const r = request(app).patch(path).set(headers(path));
      return body === undefined ? r : r.send(body as object);
    },
    delete: (path: string) => request(app).delete(path).set(headers(path)),
  };
}

export async function startRecords(opts: { database?: Database; config?: Record<string, string> } = {}): Promise<Harness> {
  const svc = await startTestService(recordsModule, opts);
  const changes: RecordChangedEvent[] = [];
  const subscription = await svc.bus.subscribe({
    group: `test.records-changed.${randomUUID()}`,
    topics: [TOPICS.recordsChanged],
    handler: async (events) => {
      for (const e of events) changes.push(recordChangedEvent.parse(e.payload));
    },
  });
  return {
    svc,
    changes,
    as: (tenantId, scopes = ['records'], plan) => client(svc, tenantId, scopes, plan),
    async waitForChanges(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(changes)) {
        if (Date.now() > deadline) throw new Error(`records.changed events did not arrive; saw ${JSON.stringify(changes.map((c) => [c.kind, c.record_id, c.version]))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return changes;
    },
    async stop() {
      await subscription.stop();
      await svc.stop();
    },
  };
}

export const newTenant = () => randomUUID();

export function bolt(overrides: Record<string, unknown> = {}) {
  return {
    name: 'M8 hex bolt',
    collection: 'fasteners',
    record_type: 'product',
    collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12 },
    ...overrides,
  };
}

export { eventually } from '@trove/testing';

/**
 * Plays search's side of the indexing contract: acknowledges every record change as indexed, except those `skip`
 * holds back (a record whose name marks it as never indexed, say).
 */
export function acknowledgeIndexing(h: Harness, skip: (e: RecordChangedEvent) => boolean): Promise<Subscription> {
  return h.svc.bus.subscribe({
    group: `test.acker.${randomUUID()}`,
    topics: [TOPICS.recordsChanged],
    handler: async (events) => {
      const acks = events
        .map((e) => recordChangedEvent.parse(e.payload))
        .filter((e) => !skip(e))
        .map((e) => ({ topic: TOPICS.recordsIndexed, key: e.record_id, payload: { tenant_id: e.tenant_id, record_id: e.record_id, version: e.version, status: 'indexed' } }));
      await h.svc.bus.publish(acks);
    },
  });
}
