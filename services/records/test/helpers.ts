import { randomUUID } from 'node:crypto';
import { TOPICS, recordChangedEvent, type RecordChangedEvent } from '@trove/contracts';
import type { Subscription } from '@trove/bus';
import type { Database } from '@trove/db';
import type { Scope } from '@trove/platform';
import { collectEvents, eventually, startTestService, testClient, type TestClient, type TestService } from '@trove/testing';
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

export type Client = TestClient;

export async function startRecords(opts: { database?: Database; config?: Record<string, string> } = {}): Promise<Harness> {
  const svc = await startTestService(recordsModule, opts);
  const collected = await collectEvents(svc.bus, TOPICS.recordsChanged, (payload) => recordChangedEvent.parse(payload));
  const changes = collected.events;
  return {
    svc,
    changes,
    // Calls to /internal routes are signed as ingestion's ServiceClient signs them: only another service may call those.
    as: (tenantId, scopes = ['records'], plan) => testClient(svc, tenantId, scopes, { internalCaller: 'ingestion', plan }),
    async waitForChanges(predicate, timeoutMs = 10_000) {
      await eventually(async () => {
        if (!predicate(changes)) throw new Error(`records.changed events did not arrive; saw ${JSON.stringify(changes.map((c) => [c.kind, c.record_id, c.version]))}`);
      }, timeoutMs);
      return changes;
    },
    async stop() {
      await collected.stop();
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

export { eventually };

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
