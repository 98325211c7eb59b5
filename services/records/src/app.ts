import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import { adminStatsRoutes } from './admin/routes';
import { internalCollectionStatsRoutes } from './collections/internal-routes';
import { portalCollectionRoutes } from './collections/portal-routes';
import { collectionRoutes } from './collections/routes';
import { exportRoutes } from './export/routes';
import type { ExportService } from './export/service';
import { indexingRoutes } from './indexing/routes';
import { internalPublicRecordRoutes } from './public/routes';
import { recordBulkRoutes } from './records/bulk-routes';
import { entityRoutes } from './records/entity-routes';
import { portalEntityRoutes } from './records/portal-entity-routes';
import { portalRecordRoutes } from './records/portal-routes';
import { recordRoutes } from './records/routes';
import { replaceInternalRoutes } from './replace/internal-routes';
import { portalReplaceRoutes } from './replace/portal-routes';
import type { RecordsServices } from './services';
import { bulkUpsertRoutes } from './upsert/routes';
import { visibilityRoutes } from './visibility/routes';

export interface AppDeps extends RecordsServices {
  config: Config;
  logger: Logger;
  /** The service's metrics (a registry of its own unless given). */
  metrics?: HttpMetrics;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  /** Absent where an app is built without background work (the bulk-upsert bench): no export routes then. */
  exports?: ExportService;
}

/** Composes the records HTTP app from its dependencies; it never listens. */
export function buildApp(deps: AppDeps): ReturnType<typeof createServiceApp> {
  const { config, logger, metrics, readiness, records, upsert, visibility, collections, portal, indexing, publicRecords, replace, admin, exports } = deps;
  return createServiceApp({
    name: 'records',
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    // The bulk upsert parses its own, larger body (upsert/routes.ts). The path holds no pattern characters.
    rawBodyPaths: [new RegExp(`^${RECORDS_BULK_UPSERT.path}/?$`)],
    readiness,
    routes: (router) => {
      // Fixed paths first: /records/bulk and friends would otherwise be taken for a record id.
      bulkUpsertRoutes(router, upsert);
      recordBulkRoutes(router, records);
      indexingRoutes(router, indexing);
      adminStatsRoutes(router, admin);
      if (exports) exportRoutes(router, exports);
      visibilityRoutes(router, visibility, records);
      collectionRoutes(router, collections);
      internalPublicRecordRoutes(router, publicRecords);
      internalCollectionStatsRoutes(router, collections);
      replaceInternalRoutes(router, replace);
      portalReplaceRoutes(router, replace);
      recordRoutes(router, records);
      entityRoutes(router, records);
      portalRecordRoutes(router, records);
      portalCollectionRoutes(router, collections, portal);
      portalEntityRoutes(router, records);
    },
  });
}
