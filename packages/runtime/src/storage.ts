import { createEventBus, type EventBus } from '@trove/bus';
import { openDatabase, type Database } from '@trove/db';
import { currentTenant, databaseUrl, type Config, type Logger, type ServiceName } from '@trove/platform';

export interface Storage {
  database: Database;
  bus: EventBus;
}

/**
 * The databases and event buses of one process: one of each per database (a service's `<NAME>_DATABASE_URL`, or the
 * embedded PGlite folder), shared by the services of the process that use the same one. Opening a bus migrates its
 * tables (the outbox, the embedded log) in that database. `serving`: the bus is started (its relay and consumers run)
 * and the pool is sized for requests; otherwise (`trove migrate`) it only prepares the storage, on a small pool.
 */
export class ProcessStorage {
  private readonly opened = new Map<string, Storage>();

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly serving: boolean,
  ) {}

  /** The database and event bus of `service`, opened on first use. */
  async of(service: ServiceName): Promise<Storage> {
    const { config, logger } = this;
    const url = databaseUrl(config, service);
    const key = url ?? `pglite:${config.DATA_DIR}`;
    const known = this.opened.get(key);
    if (known) return known;
    if (!url && this.serving) logger.warn({ dataDir: config.DATA_DIR }, 'EMBEDDED MODE: PGlite database, embedded event log; not for production');
    const database = await openDatabase({
      url,
      dataDir: config.DATA_DIR,
      poolSize: this.serving ? config.DATABASE_POOL_SIZE : 2,
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
      onError: (err) => logger.error({ err }, 'database connection error'),
      shareKey: currentTenant,
    });
    let bus: EventBus | undefined;
    try {
      bus = await createEventBus({
        database,
        logger,
        kafkaBrokers: config.KAFKA_BROKERS,
        kafkaClientId: config.KAFKA_CLIENT_ID,
        eventRetentionMs: config.EVENT_RETENTION_HOURS * 3_600_000,
      });
      if (this.serving) await bus.start();
    } catch (err) {
      // Not yet among the opened ones, which close() closes: they would be left open.
      await bus?.close().catch(() => undefined);
      await database.close().catch(() => undefined);
      throw err;
    }
    if (this.serving) logger.info({ bus: bus.kind, database: database.kind }, 'storage and event bus ready');
    const storage = { database, bus };
    this.opened.set(key, storage);
    return storage;
  }

  /** Closes every bus, then its database. */
  async close(): Promise<void> {
    for (const { database, bus } of this.opened.values()) {
      await bus.close().catch((err: unknown) => this.logger.error({ err }, 'event bus close failed'));
      await database.close().catch((err: unknown) => this.logger.error({ err }, 'database close failed'));
    }
    this.opened.clear();
  }
}
