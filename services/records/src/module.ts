import { migrate } from '@trove/db';
import type { Subscription } from '@trove/bus';
import type { ServiceModule } from '@trove/runtime';
import { AdminService } from './admin-service';
import { buildApp } from './app';
import { ExportRunner } from './export-runner';
import { ExportService } from './export-service';
import { subscribeIndexingStatus } from './consumers/indexing-status';
import { IndexingWaiter } from './indexing-waiter';
import { migrations } from './migrations';
import { PortalService } from './portal-service';
import { RecordsService } from './records-service';
import { ReplaceService } from './replace-service';
import type { ExportDb } from './store/exports';
import type { Db } from './store/schema';

/** The records service: the system of record for records and collections. */
export const recordsModule: ServiceModule = {
  name: 'records',
  dependsOn: [],
  async init(ctx) {
    await migrate(ctx.database, 'records', migrations);
    // The one place the untyped handle gets the records schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const waiter = new IndexingWaiter(db, ctx.logger.child({ component: 'indexing-waiter' }));
    const records = new RecordsService(db, ctx.bus, { waiter, timeoutMs: ctx.config.INDEXING_WAIT_MS });
    const portal = new PortalService(db, records);
    // The same handle, with the export tables, which only the export code reads (store/exports.ts).
    const exportDb: ExportDb = ctx.database.db;
    const exportRunner = new ExportRunner({
      db: exportDb,
      logger: ctx.logger.child({ component: 'exports' }),
      ttlHours: ctx.config.EXPORT_TTL_HOURS,
      staleSeconds: ctx.config.EXPORT_STALE_SECONDS,
    });
    const exports = new ExportService(exportDb, exportRunner);
    const app = buildApp({ config: ctx.config, logger: ctx.logger, readiness: ctx.readiness, records, portal, replace: new ReplaceService(db, ctx.bus, ctx.config.INDEXING_WAIT_MS), admin: new AdminService(db, ctx.bus), exports });
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
