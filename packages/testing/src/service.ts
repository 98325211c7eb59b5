import { createEventBus, type EventBus } from '@trove/bus';
import type { Database } from '@trove/db';
import { IDENTITY_HEADER, createLogger, loadConfig, signIdentity, type Config, type Identity, type Scope, type ServiceName } from '@trove/platform';
import { serviceContext, type ServiceContext, type ServiceInstance, type ServiceModule } from '@trove/runtime';
import { createTestDatabase } from './database';

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

/** The `as` of a TestService: identities signed with the service's INTERNAL_TOKEN_SECRET. */
export function identityHeaders(config: Config): TestService['as'] {
  return (tenantId, scopes = ['admin'], principal = `test:${tenantId}`, caller, plan) => {
    const identity: Identity = { tenantId, principal, scopes, caller, plan };
    // An hour, so headers made in beforeAll outlive a long test file; the gateway's own tokens stay short-lived.
    return { [IDENTITY_HEADER]: signIdentity(identity, config.INTERNAL_TOKEN_SECRET, 3600) };
  };
}

/**
 * Initialises one service module against a database (a fresh PostgreSQL database unless one is given), with the
 * real event bus, and starts its background work. Tests talk to `instance.app` through supertest. A module that
 * calls others reaches them over HTTP at their <NAME>_URL; startTestSystem starts several together.
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
    as: identityHeaders(config),
    async stop() {
      await instance.stop?.();
      await bus.close();
      if (owned) await owned.drop();
    },
  };
}
