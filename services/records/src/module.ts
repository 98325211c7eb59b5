import { migrate } from '@trove/db';
import type { Subscription } from '@trove/bus';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { subscribeIndexingStatus } from './consumers/indexing-status';
import { migrations } from './migrations';
import { RecordsService } from './records-service';
import type { Db } from './store/schema';

/** The records service: the system of record for records and collections. */
export const recordsModule: ServiceModule = {
  name: 'records',
  dependsOn: [],
  async init(ctx) {
    await migrate(ctx.database, 'records', migrations);
    const db = ctx.database.db as Db;
    const records = new RecordsService(db, ctx.bus);
    const app = buildApp({ config: ctx.config, logger: ctx.logger, database: ctx.database, records });
    let subscription: Subscription | undefined;
    return {
      app,
      async start() {
        subscription = await subscribeIndexingStatus(ctx.bus, db, ctx.logger.child({ consumer: 'indexing-status' }));
      },
      async stop() {
        await subscription?.stop();
        subscription = undefined;
      },
    };
  },
};
