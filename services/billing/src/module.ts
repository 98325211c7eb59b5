import type { Subscription } from '@trove/bus';
import { defaultPlan } from '@trove/contracts';
import { migrate } from '@trove/db';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { subscribeUsageEvents } from './consumers/usage-events';
import { migrations } from './migrations';
import { createPayments } from './stripe/payments';
import type { Db } from './store/schema';
import { UsageService } from './usage-service';

/** Billing: each tenant's plan (the source of truth, announced on billing.events) and its usage per month. */
export const billingModule: ServiceModule = {
  name: 'billing',
  // Usage asks records for the tenant's active records.
  dependsOn: ['records'],
  async init(ctx) {
    const { config, logger, bus } = ctx;
    await migrate(ctx.database, 'billing', migrations);
    // The one place the untyped handle gets the billing schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const records = ctx.client('records');
    const usage = new UsageService({ db, records, defaultPlan: defaultPlan(config.DEPLOYMENT_MODE) });
    const payments = createPayments({ config, db, bus, logger });
    let usageEvents: Subscription | undefined;
    return {
      app: buildApp({ config, logger, readiness: ctx.readiness, usage, payments }),
      async start() {
        usageEvents = await subscribeUsageEvents(bus, db, logger.child({ consumer: 'usage-events' }));
        payments?.meter.start();
      },
      async stop() {
        await payments?.meter.stop();
        await usageEvents?.stop();
        usageEvents = undefined;
        records.shutdown();
      },
    };
  },
};
