import { createServiceApp, trustProxySetting, type Config, type Logger, type ReadinessCheck } from '@trove/platform';
import type { AccountService } from './account-service';
import type { KeyService } from './key-service';
import { internalKeyRoutes } from './routes/internal-keys';
import { keyRoutes } from './routes/key-routes';
import { portalQuickstartRoutes } from './routes/portal-quickstart';
import type { QuickstartService } from './quickstart-service';
import { portalAccountRoutes } from './routes/portal-account';
import { portalAuthRoutes } from './routes/portal-auth';
import { portalKeyRoutes } from './routes/portal-keys';
import { adminTenantRoutes } from './routes/admin-tenants';
import type { TenantAdminService } from './tenant-admin-service';

export interface AuthAppDeps {
  config: Config;
  logger: Logger;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  keys: KeyService;
  accounts: AccountService;
  quickstart: QuickstartService;
  tenants: TenantAdminService;
}

export function createAuthApp({ config, logger, readiness, keys, accounts, quickstart, tenants }: AuthAppDeps) {
  const app = createServiceApp({
    name: 'auth',
    logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness,
    routes: (router) => {
      keyRoutes(router, keys);
      internalKeyRoutes(router, keys);
      portalQuickstartRoutes(router, quickstart);
      portalAuthRoutes(router, accounts);
      portalAccountRoutes(router, accounts);
      portalKeyRoutes(router, keys);
      adminTenantRoutes(router, tenants);
    },
  });
  // Sign-in attempts are limited per client address: the gateway's X-Forwarded-For, believed only from TRUSTED_PROXIES.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  return app;
}
