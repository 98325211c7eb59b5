import type { Subscription } from '@trove/bus';
import { migrate } from '@trove/db';
import { configuredScheduler, createMetrics } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { subscribeBillingEvents } from './consumers/billing-events';
import { CredentialCipher } from './domain/cipher';
import { migrations } from './migrations';
import { PullService } from './pull-service';
import { Scheduler } from './scheduler';
import { sourceOpener } from './sources';
import type { Db } from './store/schema';

/** How long a pull's upload may run, first byte to ingestion's answer, before it is given up. */
const PULL_UPLOAD_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/**
 * Pull connectors: tenants' PostgreSQL, MySQL, MongoDB and Neo4j sources with encrypted credentials, pulled on demand
 * or on a cron schedule, their rows ingested through ingestion as uploads of source_type connector.
 */
export const connectorModule: ServiceModule = {
  name: 'connector',
  // Pulled rows go to ingestion, which writes them to records.
  dependsOn: ['ingestion'],
  async init(ctx) {
    const { config, logger } = ctx;
    if (config.generatedConnectorEncryptionKey) {
      logger.warn(
        'CONNECTOR_ENCRYPTION_KEY not set: connector credentials are encrypted under a random key of this process and cannot be read after it stops; never do this in production',
      );
    }
    await migrate(ctx.database, 'connector', migrations);
    // The one place the untyped handle gets the connector schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const cipher = new CredentialCipher(config.CONNECTOR_ENCRYPTION_KEY);
    const metrics = createMetrics('connector', ctx.registry);
    // Scheduled pulls wait for their tenant's turn as long as a pull may run; those asked for were already admitted by
    // the gateway.
    const shares = configuredScheduler(config, {
      name: 'pulls',
      what: 'connector',
      concurrency: config.SCHEDULER_PULL_CONCURRENCY,
      maxWaitMs: config.CONNECTOR_STATEMENT_TIMEOUT_MS,
      registry: metrics.registry,
    });
    const pulls = new PullService({
      shares,
      db,
      cipher,
      open: sourceOpener(),
      ingestion: ctx.client('ingestion'),
      uploadTimeoutMs: PULL_UPLOAD_TIMEOUT_MS,
      logger: logger.child({ component: 'pulls' }),
      cloud: config.DEPLOYMENT_MODE === 'cloud',
      connectTimeoutMs: config.CONNECTOR_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.CONNECTOR_STATEMENT_TIMEOUT_MS,
    });
    const scheduler = new Scheduler({ db, pulls, logger: logger.child({ component: 'scheduler' }) });
    let billingEvents: Subscription | undefined;
    return {
      app: buildApp({ config, logger, metrics, readiness: ctx.readiness, db, cipher, pulls }),
      async start() {
        billingEvents = await subscribeBillingEvents(ctx.bus, db, logger.child({ consumer: 'billing-events' }));
        scheduler.start();
      },
      async stop() {
        await scheduler.stop();
        await billingEvents?.stop();
        billingEvents = undefined;
      },
    };
  },
};
