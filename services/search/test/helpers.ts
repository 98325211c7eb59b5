import { randomUUID } from 'node:crypto';
import { openDatabase, sql } from '@trove/db';
import type { Scope } from '@trove/platform';
import { startTestSystem, testClient, type TestClient, type TestDatabase, type TestService } from '@trove/testing';
import { recordsModule } from '@trove/records-service';
import { searchModule } from '../src';

/**
 * A supertest client acting for one tenant with some scopes, as the gateway would forward it; calls to /internal
 * routes are signed as the Open API's ServiceClient signs them, since only another service may call those.
 */
export function clientOf(service: TestService | (() => TestService), tenantId: string, scopes: Scope[]): TestClient {
  return testClient(service, tenantId, scopes, { internalCaller: 'open' });
}
export type Client = TestClient;

export interface System {
  db: TestDatabase;
  records: TestService;
  search: TestService;
  /** Records and search clients of one tenant. */
  tenant(id?: string): { id: string; records: Client; search: Client; admin: Client };
  /** Replaces the search service with a new instance on the same database (a restart). */
  restartSearch(opts?: { start?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/** The records and search services on one fresh PostgreSQL database, wired through the real event log. */
export async function startSystem(config: Record<string, string> = {}): Promise<System> {
  const sys = await startTestSystem([recordsModule, searchModule], { config });
  const system: System = {
    db: sys.db,
    records: sys.service('records'),
    search: sys.service('search'),
    tenant(id = randomUUID()) {
      return {
        id,
        records: clientOf(system.records, id, ['records']),
        // The search service of the moment: a restart replaces it (restartSearch).
        search: clientOf(() => system.search, id, ['search']),
        admin: clientOf(system.records, id, ['admin']),
      };
    },
    async restartSearch(opts = {}) {
      system.search = await sys.restart('search', opts);
    },
    stop: () => sys.stop(),
  };
  return system;
}

/**
 * Holds the engine's documents table, and the narrow copy of their values that aggregation reads, from a connection
 * of its own until `release`: in `share` mode writers to them wait, searches may still read; in `access exclusive`
 * mode searches and aggregations wait too. `released` settles once the lock is
 * gone.
 */
export async function holdEngine(sys: System, mode: 'share' | 'access exclusive' = 'share'): Promise<{ release(): void; released: Promise<void> }> {
  const holder = await openDatabase({ url: sys.db.url, poolSize: 1 });
  let release!: () => void;
  const releasing = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const held = holder.db.transaction().execute(async (trx) => {
    await sql.raw(`lock table search_engine.documents, search_engine.document_values in ${mode} mode`).execute(trx);
    locked();
    await releasing;
  });
  await Promise.race([isLocked, held]);
  const released = held.finally(() => holder.close());
  return { release, released };
}

export { product } from './product';
