import { createServiceApp, type Config, type Logger } from '@trove/platform';
import { mcpRoutes } from './routes/mcp';
import type { Backends } from './backend';

export interface AppDeps {
  config: Config;
  logger: Logger;
  upstreams: Backends;
}

/** Composes the mcp HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  return createServiceApp({
    name: 'mcp',
    logger: deps.logger,
    internalTokenSecret: deps.config.INTERNAL_TOKEN_SECRET,
    jsonLimit: deps.config.JSON_BODY_LIMIT,
    routes: (router) => {
      mcpRoutes(router, deps.upstreams);
    },
  });
}
