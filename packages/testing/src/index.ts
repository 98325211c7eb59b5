/**
 * The test harness: fresh databases on the test server and one service module started as a test would use it.
 * Test-only: it reads process.env (TEST_DATABASE_URL, TEST_LOG_LEVEL) on import, so only tests and benches
 * depend on it, never a production package.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createEventBus, type EventBus } from '@trove/bus';
import { openDatabase, type Database } from '@trove/db';
import { IDENTITY_HEADER, createLogger, loadConfig, signIdentity, type Config, type Identity, type Scope, type ServiceName } from '@trove/platform';
import { serviceContext, type ServiceContext, type ServiceInstance, type ServiceModule } from '@trove/runtime';

/** The PostgreSQL server tests run against; CI starts it if it is down. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `trove_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 5 });
  return {
    url: url.toString(),
    database,
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: TEST_SERVER_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  // A service tested alone has no search service to acknowledge writes: it answers at once unless a test says so.
  return loadConfig({ ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', INDEXING_WAIT_MS: '0', ...overrides });
}

export interface TestService {
  instance: ServiceInstance;
  ctx: ServiceContext;
  database: Database;
  bus: EventBus;
  /**
   * Headers carrying a valid internal identity, as the gateway would send; with `caller`, as that service's
   * ServiceClient would send them instead (which only /internal routes need); with `plan`, on that plan (without
   * one, services read the self-hosted enterprise default).
   */
  as(tenantId: string, scopes?: Scope[], principal?: string, caller?: ServiceName, plan?: string): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Initialises one service module against a database (a fresh PostgreSQL database unless one is given), with the
 * real event bus, and starts its background work. Tests talk to `instance.app` through supertest.
 */
export async function startTestService(
  module: ServiceModule,
  opts: { database?: Database; config?: Record<string, string>; start?: boolean } = {},
): Promise<TestService> {
  const owned = opts.database ? undefined : await createTestDatabase();
  const database = opts.database ?? owned!.database;
  const config = testConfig(opts.config);
  const logger = createLogger({ level: config.LOG_LEVEL, name: module.name });
  const bus = await createEventBus({ database, logger, kafkaBrokers: config.KAFKA_BROKERS });
  await bus.start();
  const ctx = serviceContext(module.name, { config, logger, database, bus });
  const instance = await module.init(ctx);
  if (opts.start !== false) await instance.start?.();
  return {
    instance,
    ctx,
    database,
    bus,
    as(tenantId, scopes = ['admin'], principal = `test:${tenantId}`, caller, plan) {
      const identity: Identity = { tenantId, principal, scopes, caller, plan };
      // An hour, so headers made in beforeAll outlive a long test file; the gateway's own tokens stay short-lived.
      return { [IDENTITY_HEADER]: signIdentity(identity, config.INTERNAL_TOKEN_SECRET, 3600) };
    },
    async stop() {
      await instance.stop?.();
      await bus.close();
      if (owned) await owned.drop();
    },
  };
}

/** Waits until `check` passes, for effects that happen after an answer (consumers, timer flushes). */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Every event of a topic published from now on, parsed; `stop()` ends the collection. */
export interface CollectedEvents<T> {
  events: T[];
  stop(): Promise<void>;
}

/** Collects a topic's events in a consumer group of its own, as a test observing what a service announces. */
export async function collectEvents<T>(bus: EventBus, topic: string, parse: (payload: unknown) => T): Promise<CollectedEvents<T>> {
  const events: T[] = [];
  const subscription = await bus.subscribe({
    group: `test.collect.${randomBytes(6).toString('hex')}`,
    topics: [topic],
    handler: async (batch) => {
      for (const e of batch) events.push(parse(e.payload));
    },
  });
  return { events, stop: () => subscription.stop() };
}
