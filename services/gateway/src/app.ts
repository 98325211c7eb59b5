import type { Express } from 'express';
import type { Database } from '@trove/db';
import { createServiceApp, serviceUrl, type Config, type Logger } from '@trove/platform';
import { withVersionedHealthPaths } from './routes/health';
import { proxyRoutes, type ProxyDeps } from './routes/proxy';

export interface GatewayAppDeps extends ProxyDeps {
  config: Config;
  logger: Logger;
  database: Database;
}

async function reachable(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`health answered ${res.status}`);
}

export function createGatewayApp({ config, logger, database, ...proxy }: GatewayAppDeps): Express {
  const app = createServiceApp({
    name: 'gateway',
    logger,
    // The gateway never parses or buffers a body: every request streams through to its service as it arrives.
    rawBodyPaths: [/.*/],
    readiness: {
      database: () => database.ping(),
      auth: () => reachable(serviceUrl(config, 'auth')),
    },
    routes: (router) => proxyRoutes(router, proxy),
  });
  return withVersionedHealthPaths(app);
}
