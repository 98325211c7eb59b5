import { migrate } from '@trove/db';
import type { ServiceModule } from '@trove/runtime';
import { createAuthApp } from './app';
import { newTenantPlan } from './domain/deployment';
import { KeyService } from './key-service';
import { authMigrations } from './migrations';
import type { Db } from './store/schema';

export const authModule: ServiceModule = {
  name: 'auth',
  dependsOn: [],
  async init({ config, logger, database, bus }) {
    await migrate(database, 'auth', authMigrations);
    // The one place the untyped handle gets the auth schema's table types; everything below takes `db`.
    const db: Db = database.db;
    const keys = new KeyService({ db, bus, apiKeySalt: config.API_KEY_SALT, newTenantPlan: newTenantPlan(config) });
    return { app: createAuthApp({ config, logger, database, keys }) };
  },
};
