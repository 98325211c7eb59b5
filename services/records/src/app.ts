import type { Database } from '@trove/db';
import { ERRORS, createServiceApp, type Config, type Logger } from '@trove/platform';
import type { Request } from './http';
import type { RecordsService } from './records-service';
import { collectionRoutes } from './routes/collections';
import { recordBulkRoutes } from './routes/records-bulk';
import { recordRoutes } from './routes/records';
import { retryResetRoutes } from './routes/retry-reset';
import { visibilityRoutes } from './routes/visibility';

/**
 * Express rejects a path with broken percent-encoding (`/records/%E0%A4%A`) by throwing a URIError while matching;
 * that is the client's mistake, so it answers 400 rather than falling through to a 500.
 */
function malformedPathError(err: unknown, _req: Request, _res: unknown, next: (err?: unknown) => void): void {
  next(err instanceof URIError ? ERRORS.badRequest('Malformed percent-encoding in the request path') : err);
}

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  records: RecordsService;
}

/** Composes the records HTTP app from its dependencies; it never listens. */
export function buildApp({ config, logger, database, records }: AppDeps): ReturnType<typeof createServiceApp> {
  return createServiceApp({
    name: 'records',
    logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    readiness: { database: () => database.ping() },
    routes: (router) => {
      // Fixed paths first: /records/bulk and friends would otherwise be taken for a record id.
      recordBulkRoutes(router, records);
      retryResetRoutes(router, records);
      visibilityRoutes(router, records);
      collectionRoutes(router, records);
      recordRoutes(router, records);
      router.use(malformedPathError);
    },
  });
}
