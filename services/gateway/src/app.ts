import type { Express } from 'express';
import {
  createServiceApp,
  trustProxySetting,
  type Config,
  type HttpMetrics,
  type Logger,
  type ReadinessCheck,
} from '@trove/platform';
import { corsRoutes } from './cors';
import { VERSIONED_ALIASES } from './routes/health';
import { proxyRoutes, type ProxyDeps } from './routes/proxy';
import { referenceRoutes } from './routes/reference';
import { webRoutes } from './routes/web';

export interface GatewayAppDeps extends ProxyDeps {
  config: Config;
  logger: Logger;
  /** Checks of the gateway's database, the event bus and the counter store, for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  /** Where the gateway's own metrics go (its HTTP metrics and its fair schedulers'). */
  metrics?: HttpMetrics;
}

export function createGatewayApp({ config, logger, readiness, metrics, ...proxy }: GatewayAppDeps): Express {
  const app = createServiceApp({
    name: 'gateway',
    logger,
    metrics,
    // The gateway never parses or buffers a body: every request streams through to its service as it arrives.
    rawBodyPaths: [/.*/],
    // What the gateway alone needs: its storage, events and counters. Not the services behind it: an orchestrator
    // takes a gateway that is not ready out of its load balancer, so a search engine's outage would close every
    // route (keys, uploads, the portal) instead of the search routes, which answer 503 on their own while their
    // service is down (its circuit breaker).
    readiness,
    // The versioned health paths reach the platform's own /health, /health/ready and /metrics handlers.
    aliases: VERSIONED_ALIASES,
    routes: (router) => {
      corsRoutes(router, config.CORS_ORIGINS);
      referenceRoutes(router);
      webRoutes(router);
      proxyRoutes(router, proxy);
    },
  });
  // The client address the Open API's fair shares go by is the socket's, or X-Forwarded-For's behind a trusted proxy.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  return app;
}
