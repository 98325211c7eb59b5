import { createEventBus, type EventBus } from '@trove/bus';
import { openDatabase, type Database } from '@trove/db';
import { databaseUrl, listen, servicePort, type Config, type Logger, type RunningServer } from '@trove/platform';
import { orderModules, serviceContext, type ServiceInstance, type ServiceModule } from './module';

export interface StartSystemOptions {
  config: Config;
  logger: Logger;
  modules: ServiceModule[];
  /** Overrides the port of a service (tests use 0 for a free port). */
  ports?: Partial<Record<string, number>>;
  /** Address a service listens on, by name; HOST for any service not named. */
  hosts?: Partial<Record<string, string>>;
}

export interface RunningSystem {
  /** Port each started service listens on. */
  ports: Record<string, number>;
  stop(): Promise<void>;
}

interface Shared {
  database: Database;
  bus: EventBus;
}

/**
 * Starts modules in dependency order, each on its own port, and stops them in reverse: each module's HTTP server
 * drains, then its consumers stop; the buses and pools close last. If any module fails to start, everything started so far is stopped and
 * the error is rethrown, so the process never runs half a system.
 */
export async function startSystem(opts: StartSystemOptions): Promise<RunningSystem> {
  const { config, logger } = opts;
  const shared = new Map<string, Shared>();
  const started: Array<{ name: string; server: RunningServer; instance: ServiceInstance }> = [];
  const ports: Record<string, number> = {};

  const sharedFor = async (url: string | undefined): Promise<Shared> => {
    const key = url ?? `pglite:${config.DATA_DIR}`;
    let s = shared.get(key);
    if (!s) {
      if (!url) logger.warn({ dataDir: config.DATA_DIR }, 'EMBEDDED MODE: PGlite database, embedded event log; not for production');
      const database = await openDatabase({
        url,
        dataDir: config.DATA_DIR,
        poolSize: config.DATABASE_POOL_SIZE,
        onError: (err) => logger.error({ err }, 'database connection error'),
      });
      const bus = await createEventBus({
        database,
        logger,
        kafkaBrokers: config.KAFKA_BROKERS,
        kafkaClientId: config.KAFKA_CLIENT_ID,
        eventRetentionMs: config.EVENT_RETENTION_HOURS * 3_600_000,
      });
      await bus.start();
      logger.info({ bus: bus.kind, database: database.kind }, 'storage and event bus ready');
      s = { database, bus };
      shared.set(key, s);
    }
    return s;
  };

  const stop = async () => {
    // Module by module in reverse dependency order: each drains its HTTP and then stops its background work while
    // the modules it depends on still answer (ingestion flushes its stream buffers into records on stop).
    for (const s of [...started].reverse()) {
      await s.server.close(config.SHUTDOWN_TIMEOUT_MS).catch((err) => logger.error({ err, service: s.name }, 'HTTP drain failed'));
      await s.instance.stop?.().catch((err) => logger.error({ err, service: s.name }, 'service stop failed'));
    }
    started.length = 0;
    for (const s of shared.values()) {
      await s.bus.close().catch((err) => logger.error({ err }, 'event bus close failed'));
      await s.database.close().catch((err) => logger.error({ err }, 'database close failed'));
    }
    shared.clear();
  };

  try {
    for (const module of orderModules(opts.modules)) {
      const log = logger.child({ service: module.name });
      const { database, bus } = await sharedFor(databaseUrl(config, module.name));
      const instance = await module.init(serviceContext(module.name, { config, logger: log, database, bus }));
      const port = opts.ports?.[module.name] ?? servicePort(config, module.name);
      const server = await listen(instance.app, port, opts.hosts?.[module.name] ?? config.HOST);
      started.push({ name: module.name, server, instance });
      ports[module.name] = server.port;
      await instance.start?.();
      log.info({ port: server.port }, `${module.name} listening`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, stop };
}
