import type { Express } from 'express';
import type { Database } from '@trove/db';
import { createServiceApp, serviceUrl, type Config, type Logger } from '@trove/platform';
import type { Authenticator } from './authenticate';
import { withVersionedHealthPaths } from './routes/health';
import { proxyRoutes } from './routes/proxy';
import type { Upstreams } from './upstreams';

export interface GatewayAppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  authenticator: Authenticator;
  upstreams: Upstreams;
}

async function reachable(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`health answered ${res.status}`);
}

export function createGatewayApp({ config, logger, database, authenticator, upstreams }: GatewayAppDeps): Express {
  const app = createServiceApp({
    name: 'gateway',
    logger,
    // The gateway never parses or buffers a body: every request streams through to its service as it arrives.
    rawBodyPaths: [/.*/],
    readiness: {
      database: () => database.ping(),
      auth: () => reachable(serviceUrl(config, 'auth')),
    },
    routes: (router) => proxyRoutes(router, { authenticator, upstreams }),
  });
  return withVersionedHealthPaths(app);
}
