import { migrate } from '@trove/db';
import type { Subscription } from '@trove/bus';
import { createMetrics } from '@trove/platform';
import { Gauge, Histogram } from 'prom-client';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { ExportRunner } from './export/runner';
import { ExportService } from './export/service';
import type { ExportDb } from './export/store';
import { subscribeIndexingStatus } from './indexing/consumer';
import { countAllIndexingBacklog } from './indexing/store';
import { IndexingWaiter } from './indexing/waiter';
import { migrations } from './migrations';
import { createServices } from './services';
import type { Db } from './shared/schema';

/** The records service: the system of record for records and collections. */
export const recordsModule: ServiceModule = {
  name: 'records',
  dependsOn: [],
  async init(ctx) {
    await migrate(ctx.database, 'records', migrations);
    // The one place the untyped handle gets the records schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const waiter = new IndexingWaiter(db, ctx.logger.child({ component: 'indexing-waiter' }));
    const services = createServices(db, ctx.bus, { waiter, timeoutMs: ctx.config.INDEXING_WAIT_MS });
    // The same handle, with the export tables, which only the export code reads (export/store.ts).
    const exportDb: ExportDb = ctx.database.db;
    const metrics = createMetrics('records', ctx.registry);
    new Gauge({
      name: 'trove_indexing_backlog_records',
      help: 'Records awaiting indexing (pending or being indexed), every tenant (read when scraped)',
      registers: [metrics.registry],
      async collect() {
        try {
          this.set(await countAllIndexingBacklog(db));
        } catch {
          // A database that cannot answer shows no backlog rather than an old one; its readiness check reports it.
          this.reset();
        }
      },
    });
    const exportRunner = new ExportRunner({
      durations: new Histogram({
        name: 'trove_export_duration_seconds',
        help: 'Time from an export request to its end, by format and outcome',
        labelNames: ['format', 'status'] as const,
        buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
        registers: [metrics.registry],
      }),
      db: exportDb,
      logger: ctx.logger.child({ component: 'exports' }),
      ttlHours: ctx.config.EXPORT_TTL_HOURS,
      staleSeconds: ctx.config.EXPORT_STALE_SECONDS,
    });
    const exports = new ExportService(exportDb, exportRunner);
    const app = buildApp({ config: ctx.config, logger: ctx.logger, metrics, readiness: ctx.readiness, ...services, exports });
    let subscription: Subscription | undefined;
    return {
      app,
      async start() {
        subscription = await subscribeIndexingStatus(ctx.bus, db, ctx.logger.child({ consumer: 'indexing-status' }), waiter);
        exportRunner.start();
      },
      async stop() {
        // Running exports stop after the part they are writing and are released for the next process to resume.
        await exportRunner.stop();
        waiter.stop();
        await subscription?.stop();
        subscription = undefined;
      },
    };
  },
};
