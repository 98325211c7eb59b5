import type { Database } from '@trove/db';
import { createServiceApp, type Config, type Logger } from '@trove/platform';
import { usageRoutes } from './routes/usage';
import type { UsageService } from './usage-service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  usage: UsageService;
}

/** Composes the billing service's HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  const { config } = deps;
  return createServiceApp({
    name: 'billing',
    logger: deps.logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: { database: () => deps.database.ping() },
    routes: (router) => {
      usageRoutes(router, deps.usage);
    },
  });
}
