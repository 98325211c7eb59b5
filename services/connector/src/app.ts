import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import type { CredentialCipher } from './domain/cipher';
import type { PullService } from './pull-service';
import { connectorRoutes } from './routes/connectors';
import type { Db } from './store/schema';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The service's metrics (its HTTP metrics and its pull scheduler's); made by the app when absent. */
  metrics?: HttpMetrics;
  readiness: Record<string, ReadinessCheck>;
  db: Db;
  cipher: CredentialCipher;
  pulls: PullService;
}

/** Composes the connector service's HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  const { config } = deps;
  return createServiceApp({
    name: 'connector',
    logger: deps.logger,
    metrics: deps.metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: deps.readiness,
    routes: (router) => {
      connectorRoutes(router, { db: deps.db, cipher: deps.cipher, pulls: deps.pulls, cloud: config.DEPLOYMENT_MODE === 'cloud' });
    },
  });
}
