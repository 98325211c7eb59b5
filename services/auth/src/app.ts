import { createServiceApp, trustProxySetting, type Config, type Logger } from '@trove/platform';
import type { Database } from '@trove/db';
import type { AccountService } from './account-service';
import type { KeyService } from './key-service';
import { internalKeyRoutes } from './routes/internal-keys';
import { keyRoutes } from './routes/key-routes';
import { portalQuickstartRoutes } from './routes/portal-quickstart';
import type { QuickstartService } from './quickstart-service';
import { portalAccountRoutes } from './routes/portal-account';
import { portalAuthRoutes } from './routes/portal-auth';
import { portalKeyRoutes } from './routes/portal-keys';

export interface AuthAppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  keys: KeyService;
  accounts: AccountService;
  quickstart: QuickstartService;
}

export function createAuthApp({ config, logger, database, keys, accounts, quickstart }: AuthAppDeps) {
  const app = createServiceApp({
    name: 'auth',
    logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: { database: () => database.ping() },
    routes: (router) => {
      keyRoutes(router, keys);
      internalKeyRoutes(router, keys);
      portalQuickstartRoutes(router, quickstart);
      portalAuthRoutes(router, accounts);
      portalAccountRoutes(router, accounts);
      portalKeyRoutes(router, keys);
    },
  });
  // Sign-in attempts are limited per client address: the gateway's X-Forwarded-For, believed only from TRUSTED_PROXIES.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  return app;
}
