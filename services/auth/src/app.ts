import { createServiceApp, type Config, type Logger } from '@trove/platform';
import type { Database } from '@trove/db';
import type { KeyService } from './key-service';
import { internalKeyRoutes } from './routes/internal-keys';
import { keyRoutes } from './routes/key-routes';

export interface AuthAppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  keys: KeyService;
}

export function createAuthApp({ config, logger, database, keys }: AuthAppDeps) {
  return createServiceApp({
    name: 'auth',
    logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: { database: () => database.ping() },
    routes: (router) => {
      keyRoutes(router, keys);
      internalKeyRoutes(router, keys);
    },
  });
}
