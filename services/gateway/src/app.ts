import type { Express } from 'express';
import { createServiceApp, serviceUrl, type Config, type Logger, type ReadinessCheck } from '@trove/platform';
import { withVersionedHealthPaths } from './routes/health';
import { proxyRoutes, type ProxyDeps } from './routes/proxy';

export interface GatewayAppDeps extends ProxyDeps {
  config: Config;
  logger: Logger;
  /** Checks of the gateway's database, the event bus and the counter store, for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
}

/** Whether a service answers `path` with 2xx (its /health, or its /health/ready when its own dependencies matter). */
async function answers(baseUrl: string, path: string): Promise<void> {
  const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
}

export function createGatewayApp({ config, logger, readiness, ...proxy }: GatewayAppDeps): Express {
  const app = createServiceApp({
    name: 'gateway',
    logger,
    // The gateway never parses or buffers a body: every request streams through to its service as it arrives.
    rawBodyPaths: [/.*/],
    // The system as a client sees it: storage, events and counters, auth (no key is checked without it), and the
    // search engine (through the search service's readiness, which pings it).
    readiness: {
      ...readiness,
      auth: () => answers(serviceUrl(config, 'auth'), '/health'),
      search_engine: () => answers(serviceUrl(config, 'search'), '/health/ready'),
    },
    routes: (router) => proxyRoutes(router, proxy),
  });
  return withVersionedHealthPaths(app);
}
