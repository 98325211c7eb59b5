import { migrate } from '@trove/db';
import type { ServiceModule } from '@trove/runtime';
import { createAuthApp } from './app';
import { newTenantPlan } from './domain/deployment';
import { KeyService } from './key-service';
import { authMigrations } from './migrations';

export const authModule: ServiceModule = {
  name: 'auth',
  dependsOn: [],
  async init({ config, logger, database, bus }) {
    await migrate(database, 'auth', authMigrations);
    const keys = new KeyService({ database, bus, apiKeySalt: config.API_KEY_SALT, newTenantPlan: newTenantPlan(config) });
    return { app: createAuthApp({ config, logger, database, keys }) };
  },
};
