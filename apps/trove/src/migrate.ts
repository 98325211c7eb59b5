import { createEventBus, type EventBus } from '@trove/bus';
import { openDatabase, type Database } from '@trove/db';
import { createLogger, databaseUrl, type Config } from '@trove/platform';
import { orderModules, serviceContext } from '@trove/runtime';
import { resolveTargets } from './modules';

/**
 * `trove migrate`: prepares the storage of the services of `target` as their start does, and serves nothing. A module's
 * init is what migrates its schema (and, for search, prepares the engine: its tables or Elasticsearch's index
 * templates), so each module is initialised and stopped again without being started: no port, no consumer, no timer.
 * Opening each database through the event bus's factory migrates the bus's tables (the outbox, the embedded log) in it.
 * Every one of these steps holds a lock and skips what is done, so this may run while an older version still serves,
 * and a service starting afterwards finds nothing left to do.
 */
export async function migrate(config: Config, target: string): Promise<void> {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove', format: config.LOG_FORMAT });
  const modules = orderModules(resolveTargets(target));
  const opened = new Map<string, { database: Database; bus: EventBus }>();
  try {
    for (const module of modules) {
      const url = databaseUrl(config, module.name);
      const key = url ?? `pglite:${config.DATA_DIR}`;
      let storage = opened.get(key);
      if (!storage) {
        const database = await openDatabase({ url, dataDir: config.DATA_DIR, poolSize: 2, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
        const bus = await createEventBus({ database, logger, kafkaBrokers: config.KAFKA_BROKERS, kafkaClientId: config.KAFKA_CLIENT_ID }).catch(
          async (err: unknown) => {
            await database.close();
            throw err;
          },
        );
        storage = { database, bus };
        opened.set(key, storage);
      }
      const log = logger.child({ service: module.name });
      const instance = await module.init(serviceContext(module.name, { config, logger: log, ...storage }));
      await instance.stop?.();
      log.info(`${module.name}: storage ready`);
    }
  } finally {
    for (const { database, bus } of opened.values()) {
      await bus.close().catch((err: unknown) => logger.error({ err }, 'event bus close failed'));
      await database.close().catch((err: unknown) => logger.error({ err }, 'database close failed'));
    }
  }
  process.stdout.write(`migrated: ${modules.map((m) => m.name).join(', ')}\n`);
}
