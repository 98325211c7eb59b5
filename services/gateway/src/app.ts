import type { Express } from 'express';
import {
  createServiceApp,
  requestInProcess,
  serviceUrl,
  trustProxySetting,
  type Config,
  type HttpMetrics,
  type Logger,
  type ReadinessCheck,
  type ServiceName,
} from '@trove/platform';
import type { ServiceContext } from '@trove/runtime';
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
  /** The services of this process, asked in process; the others at serviceUrl. */
  local?: ServiceContext['local'];
  /** Where the gateway's own metrics go (its HTTP metrics and its fair schedulers'). */
  metrics?: HttpMetrics;
}

export function createGatewayApp({ config, logger, readiness, local, metrics, ...proxy }: GatewayAppDeps): Express {
  /** Whether a service answers `path` with 2xx (its /health, or its /health/ready when its own dependencies matter). */
  const answers = async (service: ServiceName, path: string): Promise<void> => {
    const signal = AbortSignal.timeout(2_000);
    const inProcess = local?.(service);
    let status: number;
    if (inProcess) {
      const app = inProcess();
      if (!app) throw new Error(`${service} is not running in this process`);
      status = (await requestInProcess(app, { method: 'GET', path, signal })).status;
    } else {
      const res = await fetch(`${serviceUrl(config, service)}${path}`, { signal });
      await res.arrayBuffer();
      status = res.status;
    }
    if (status < 200 || status > 299) throw new Error(`${path} answered ${status}`);
  };
  const app = createServiceApp({
    name: 'gateway',
    logger,
    metrics,
    // The gateway never parses or buffers a body: every request streams through to its service as it arrives.
    rawBodyPaths: [/.*/],
    // The system as a client sees it: storage, events and counters, auth (no key is checked without it), and the
    // search engine (through the search service's readiness, which pings it).
    readiness: {
      ...readiness,
      auth: () => answers('auth', '/health'),
      search_engine: () => answers('search', '/health/ready'),
    },
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
