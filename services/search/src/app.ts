import type { Cache } from '@trove/cache';
import type { Kysely } from '@trove/db';
import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import type { SearchEngine } from '@trove/search-engine';
import type { HealthWindow } from './domain/health-window';
import type { MonthlyCap } from './monthly-cap';
import type { PipelineWorker } from './pipeline-worker';
import { aggregateRoutes } from './routes/aggregate';
import { searchHealthRoutes } from './routes/health';
import { internalPublicRoutes } from './routes/internal-public';
import { searchRoutes } from './routes/search';
import { settingsRoutes } from './routes/settings';
import type { SearchService } from './search-service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: HttpMetrics;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  engine: SearchEngine;
  cache: Cache;
  /** The service's database: collections' settings (store/settings-store.ts). */
  db: Kysely<any>;
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
      settingsRoutes(router, deps.db, deps.cache);
      internalPublicRoutes(router, deps.search);
    },
  });
}
