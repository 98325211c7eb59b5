import { randomUUID } from 'node:crypto';
import { recordsModule } from '@trove/records-service';
import { startTestSystem, type TestClient, type TestDatabase, type TestService } from '@trove/testing';
import { searchModule } from '@trove/search-service';
import { openModule } from '../src';

const ANONYMOUS = '00000000-0000-0000-0000-000000000000';

export interface System {
  db: TestDatabase;
  records: TestService;
  search: TestService;
  open: TestService;
  /** A tenant and its records, as the gateway would forward that tenant's key. */
  tenant(id?: string): { id: string; records: TestClient };
  /** The Open API as an anonymous client at one IP address (the trusted-proxy X-Forwarded-For the gateway adds). */
  client(ip?: string): TestClient;
  stop(): Promise<void>;
}

/**
 * Records, search and open on one fresh PostgreSQL database; records and search listen on ports of their own, as
 * open calls them over HTTP in production. `config` is the open service's (limits, trusted proxies).
 */
export async function startSystem(config: Record<string, string> = {}): Promise<System> {
  const sys = await startTestSystem([recordsModule, searchModule, openModule], { listen: ['records', 'search'], configOf: { open: config } });
  return {
    db: sys.db,
    records: sys.service('records'),
    search: sys.service('search'),
    open: sys.service('open'),
    tenant: (id = randomUUID()) => ({ id, records: sys.client('records', id, ['records']) }),
    client: (ip = '203.0.113.7') => sys.client('open', ANONYMOUS, [], { principal: 'anonymous', headers: { 'x-forwarded-for': ip } }),
    stop: () => sys.stop(),
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
