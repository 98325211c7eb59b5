import { createCache } from '@trove/cache';
import type { Subscription } from '@trove/bus';
import { migrate } from '@trove/db';
import { ConfigError, PortalTokens } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { AccountService } from './account-service';
import { createAuthApp } from './app';
import { newTenantPlan } from './domain/deployment';
import { dummyHash } from './domain/passwords';
import { KeyService } from './key-service';
import { authMigrations } from './migrations';
import { subscribeBillingEvents } from './consumers/billing-events';
import { subscribeUsageEvents } from './consumers/usage-events';
import { QuickstartService } from './quickstart-service';
import { TenantAdminService } from './tenant-admin-service';
import type { Db } from './store/schema';

export const authModule: ServiceModule = {
  name: 'auth',
  // GET /admin/tenants asks records what a tenant holds.
  dependsOn: ['records'],
  async init({ config, logger, database, bus, readiness, client }) {
    await migrate(database, 'auth', authMigrations);
    // The one place the untyped handle gets the auth schema's table types; everything below takes `db`.
    const db: Db = database.db;
    const keys = new KeyService({ db, bus, apiKeySalt: config.API_KEY_SALT, newTenantPlan: newTenantPlan(config) });
    const quickstart = new QuickstartService({ db });
    const records = client('records');
    const tenants = new TenantAdminService({ db, records });
    let usageEvents: Subscription | undefined;
    let billingEvents: Subscription | undefined;
    const tokens = new PortalTokens(config);
    if (!tokens.canSign) {
      throw new ConfigError('Invalid configuration:\n  JWT_PRIVATE_KEY: is required by the auth service when JWT_PUBLIC_KEY is set');
    }
    // Sign-in attempts are counted here; replicas share the count when REDIS_URL is set.
    const cache = await createCache({ redisUrl: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger: logger.child({ component: 'cache' }) });
    const accounts = new AccountService({
      db,
      tokens,
      cache,
      limits: {
        perEmail: config.PORTAL_LOGIN_LIMIT_PER_EMAIL,
        perAddress: config.PORTAL_LOGIN_LIMIT_PER_ADDRESS,
        windowMs: config.PORTAL_LOGIN_WINDOW_SECONDS * 1000,
      },
      newTenantPlan: newTenantPlan(config),
      logger,
    });
    return {
      app: createAuthApp({ config, logger, readiness: { ...readiness, cache: () => cache.ping() }, keys, accounts, quickstart, tenants }),
      async start() {
        usageEvents = await subscribeUsageEvents(bus, db, logger.child({ consumer: 'usage-events' }));
        billingEvents = await subscribeBillingEvents(bus, db, logger.child({ consumer: 'billing-events' }));
        // Made before the first sign-in for an unknown email, which would otherwise take longer than any other.
        await dummyHash();
      },
      async stop() {
        await usageEvents?.stop();
        usageEvents = undefined;
        await billingEvents?.stop();
        billingEvents = undefined;
        await cache.close();
        records.shutdown();
      },
    };
  },
};
