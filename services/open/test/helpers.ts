import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { listen, type RunningServer } from '@trove/platform';
import { recordsModule } from '@trove/records-service';
import { createTestDatabase, startTestService, type TestDatabase, type TestService } from '@trove/testing';
import { searchModule } from '@trove/search-service';
import { openModule } from '../src';

const ANONYMOUS = '00000000-0000-0000-0000-000000000000';

/** Records of one tenant, as the gateway would forward that tenant's key. */
export function recordsClient(records: TestService, tenantId: string) {
  const auth = () => records.as(tenantId, ['records']);
  return {
    post: (path: string, body: object) => request(records.instance.app).post(path).set(auth()).send(body),
    patch: (path: string, body: object) => request(records.instance.app).patch(path).set(auth()).send(body),
    delete: (path: string) => request(records.instance.app).delete(path).set(auth()),
  };
}

/** The Open API as an anonymous client at one IP address (the trusted-proxy X-Forwarded-For the gateway adds). */
export function openClient(open: TestService, ip = '203.0.113.7') {
  const headers = () => ({ ...open.as(ANONYMOUS, [], 'anonymous'), 'x-forwarded-for': ip });
  return {
    get: (path: string) => request(open.instance.app).get(path).set(headers()),
    post: (path: string, body?: unknown) => {
      const r = request(open.instance.app).post(path).set(headers());
      return body === undefined ? r : r.send(body as object);
    },
  };
}

export interface System {
  db: TestDatabase;
  records: TestService;
  search: TestService;
  open: TestService;
  tenant(id?: string): { id: string; records: ReturnType<typeof recordsClient> };
  client(ip?: string): ReturnType<typeof openClient>;
  stop(): Promise<void>;
}

/**
 * Records, search and open on one fresh PostgreSQL database; records and search listen on ports of their own, as
 * open calls them over HTTP in production. `config` is the open service's (limits, trusted proxies).
 */
export async function startSystem(config: Record<string, string> = {}): Promise<System> {
  const db = await createTestDatabase();
  const records = await startTestService(recordsModule, { database: db.database, config: { INDEXING_WAIT_MS: '5000' } });
  const search = await startTestService(searchModule, { database: db.database });
  const servers: RunningServer[] = [await listen(records.instance.app, 0, '127.0.0.1'), await listen(search.instance.app, 0, '127.0.0.1')];
  const open = await startTestService(openModule, {
    database: db.database,
    config: { RECORDS_URL: `http://127.0.0.1:${servers[0]!.port}`, SEARCH_URL: `http://127.0.0.1:${servers[1]!.port}`, ...config },
  });
  return {
    db,
    records,
    search,
    open,
    tenant: (id = randomUUID()) => ({ id, records: recordsClient(records, id) }),
    client: (ip?: string) => openClient(open, ip),
    async stop() {
      await open.stop();
      for (const s of servers) await s.close(1000);
      await search.stop();
      await records.stop();
      await db.drop();
    },
  };
}

export function product(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Hex bolt M8x40 stainless steel A2',
    collection: 'fasteners',
    record_type: 'product',
    description: 'Fully threaded hexagon head bolt',
    collection_data: { material: 'stainless steel', price: 0.42, ean: '4006381333931', standard: 'DIN 933', in_stock: true },
    visibility: 'public',
    ...overrides,
  };
}
