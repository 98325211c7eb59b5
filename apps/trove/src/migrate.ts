import { createLogger, type Config } from '@trove/platform';
import { ProcessStorage, orderModules, serviceContext } from '@trove/runtime';
import { resolveTargets } from './modules';

/**
 * `trove migrate`: prepares the storage of the services of `target` as their start does, and serves nothing. A module's
 * init is what migrates its schema (and, for search, prepares the engine: its tables or Elasticsearch's index
 * templates), so each module is initialised and stopped again without being started: no port, no consumer, no timer.
 * Each database is opened as a serving process opens it (ProcessStorage), which migrates the event bus's tables in it.
 * Every one of these steps holds a lock and skips what is done, so this may run while an older version still serves,
 * and a service starting afterwards finds nothing left to do.
 */
export async function migrate(config: Config, target: string): Promise<void> {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'trove', format: config.LOG_FORMAT });
  const modules = orderModules(resolveTargets(target));
  const storage = new ProcessStorage(config, logger, false);
  try {
    for (const module of modules) {
      const log = logger.child({ service: module.name });
      const instance = await module.init(serviceContext(module.name, { config, logger: log, ...(await storage.of(module.name)) }));
      await instance.stop?.();
      log.info(`${module.name}: storage ready`);
    }
  } finally {
    await storage.close();
  }
  process.stdout.write(`migrated: ${modules.map((m) => m.name).join(', ')}\n`);
}
