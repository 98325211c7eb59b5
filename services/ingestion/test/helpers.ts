import { randomUUID } from 'node:crypto';
import type { Scope } from '@trove/platform';
import { recordsModule } from '@trove/records-service';
import { startTestSystem, testClient, type TestClient, type TestService } from '@trove/testing';
import { ingestionModule } from '../src';

/**
 * The real records service on a port of its own and an ingestion service writing to it over HTTP, both on one fresh
 * test database, as they run in production. More ingestion services (other configuration) can join the same records.
 */
export interface System {
  records: TestService;
  recordsUrl: string;
  ingestion: TestService;
  /** Another ingestion service on the same database and records, with its own configuration. */
  startIngestion(config?: Record<string, string>): Promise<TestService>;
  stop(): Promise<void>;
}

/** `config` is the first ingestion service's; another (startIngestion) starts from the test configuration. */
export async function startSystem(config: Record<string, string> = {}): Promise<System> {
  const sys = await startTestSystem([recordsModule, ingestionModule], { listen: ['records'], configOf: { ingestion: config } });
  return {
    records: sys.service('records'),
    recordsUrl: sys.url('records'),
    ingestion: sys.service('ingestion'),
    startIngestion: (cfg = {}) => sys.replica(ingestionModule, cfg, { configOf: false }),
    stop: () => sys.stop(),
  };
}

export const newTenant = () => randomUUID();

/** Requests to a service as one tenant with the given scopes (on `plan` when given), signed afresh like the gateway does. */
export function as(svc: TestService, tenantId: string, scopes: Scope[] = ['upload'], plan?: string): TestClient {
  return testClient(svc, tenantId, scopes, { plan });
}

export type Client = TestClient;

export interface StoredRecord {
  id: string;
  name: string;
  description: string | null;
  collection: string;
  record_type: string;
  collection_data: Record<string, unknown>;
  source_type: string;
  source_name: string | null;
  source_id: string | null;
  source_url: string | null;
  version: number;
}

/** Every active record of a collection, read in full through the records API. */
export async function recordsOf(system: System, tenantId: string, collection: string): Promise<StoredRecord[]> {
  const api = as(system.records, tenantId, ['records']);
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await api.get(`/records?collection=${encodeURIComponent(collection)}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`records listing answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(...res.body.items.map((i: { id: string }) => i.id));
    cursor = res.body.has_more ? res.body.cursor : null;
  } while (cursor);
  const out: StoredRecord[] = [];
  for (const id of ids) out.push((await api.get(`/records/${id}`)).body);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** How many active records a collection holds (pages through the listing). */
export async function countOf(system: System, tenantId: string, collection: string): Promise<number> {
  const api = as(system.records, tenantId, ['records']);
  let n = 0;
  let cursor: string | null = null;
  do {
    const res = await api.get(`/records?collection=${encodeURIComponent(collection)}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    n += res.body.items.length;
    cursor = res.body.has_more ? res.body.cursor : null;
  } while (cursor);
  return n;
}

export function byName(records: StoredRecord[], name: string): StoredRecord {
  const found = records.find((r) => r.name === name);
  if (!found) throw new Error(`no record named ${name}; have ${records.map((r) => r.name).join(', ')}`);
  return found;
}

export { eventually } from '@trove/testing';
