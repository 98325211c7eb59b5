import type { Cache } from '@trove/cache';
import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import type { SearchEngine } from '@trove/search-engine';
import type { HealthWindow } from './domain/health-window';
import type { MonthlyCap } from './monthly-cap';
import type { PipelineWorker } from './pipeline-worker';
import { aggregateRoutes } from './routes/aggregate';
import { searchHealthRoutes } from './routes/health';
import { internalPublicRoutes } from './routes/internal-public';
import { searchRoutes } from './routes/search';
import type { SearchService } from './search-service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: HttpMetrics;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  engine: SearchEngine;
  cache: Cache;
  search: SearchService;
  health: HealthWindow;
  monthlyCap: MonthlyCap;
  pipeline: Pick<PipelineWorker, 'report'>;
}

/** Composes the search HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  return createServiceApp({
    name: 'search',
    logger: deps.logger,
    metrics: deps.metrics,
    internalTokenSecret: deps.config.INTERNAL_TOKEN_SECRET,
    jsonLimit: deps.config.JSON_BODY_LIMIT,
    readiness: {
      ...deps.readiness,
      engine: () => deps.engine.ping(),
      cache: () => deps.cache.ping(),
    },
    routes: (router) => {
      searchHealthRoutes(router, deps.health, deps.pipeline);
      searchRoutes(router, deps.search, deps.monthlyCap);
      aggregateRoutes(router, deps.search);
      internalPublicRoutes(router, deps.search);
    },
  });
}
