import type { Cache } from '@trove/cache';
import { createServiceApp, jsonBody, type Config, type Logger, type ReadinessCheck } from '@trove/platform';
import { trustProxySetting } from './domain/rate-limit';
import type { OpenService } from './open-service';
import { rateLimit } from './rate-limit';
import { aggregateRoutes } from './routes/aggregate';
import { collectionRoutes } from './routes/collections';
import { internalAnalyticsRoutes } from './routes/internal-analytics';
import { portalAnalyticsRoutes } from './routes/portal-analytics';
import { recordRoutes } from './routes/records';
import { searchRoutes } from './routes/search';
import { referenceRoutes } from './routes/reference';
import type { SearchCounter } from './search-counter';
import type { PublicIndex } from './public-index';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  cache: Cache;
  open: OpenService;
  counter: SearchCounter;
  upstreams: PublicIndex;
}

/** Every path: the JSON body is parsed after the rate limit, so even a malformed body's 422 carries the headers. */
const EVERY_PATH = /(?:)/;

/** Composes the Open API's HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  const { config } = deps;
  const limiter = rateLimit({
    cache: deps.cache,
    logger: deps.logger,
    limits: { search: config.OPEN_SEARCH_LIMIT_PER_MINUTE, lookup: config.OPEN_LOOKUP_LIMIT_PER_MINUTE },
  });
  const app = createServiceApp({
    name: 'open',
    logger: deps.logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    rawBodyPaths: [EVERY_PATH],
    readiness: {
      ...deps.readiness,
      cache: () => deps.cache.ping(),
    },
    routes: (router) => {
      internalAnalyticsRoutes(router, deps.counter);
      // The portal's own route: a signed-in person, not the anonymous public the limits below are for.
      portalAnalyticsRoutes(router, deps);
      // Everything below is the public Open API: counted per client IP, unknown paths included.
      router.use(limiter);
      router.use(jsonBody(config.JSON_BODY_LIMIT));
      collectionRoutes(router, deps.open);
      searchRoutes(router, deps.open);
      aggregateRoutes(router, deps.open);
      recordRoutes(router, deps.open);
      referenceRoutes(router);
    },
  });
  // The client IP the limits count is the socket's, or X-Forwarded-For's when the socket is a trusted proxy.
  app.set('trust proxy', trustProxySetting(config.TRUSTED_PROXIES));
  return app;
}
