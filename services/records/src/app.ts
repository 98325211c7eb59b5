import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { createServiceApp, type Config, type Logger, type ReadinessCheck } from '@trove/platform';
import type { AdminService } from './admin-service';
import type { ExportService } from './export-service';
import type { PortalService } from './portal-service';
import type { RecordsService } from './records-service';
import type { ReplaceService } from './replace-service';
import { adminReindexRoutes } from './routes/admin-reindex';
import { adminStatsRoutes } from './routes/admin-stats';
import { bulkUpsertRoutes } from './routes/bulk-upsert';
import { collectionRoutes } from './routes/collections';
import { entityRoutes } from './routes/entities';
import { exportRoutes } from './routes/export';
import { internalCollectionStatsRoutes } from './routes/internal-collection-stats';
import { internalPublicRecordRoutes } from './routes/internal-public';
import { portalCollectionRoutes } from './routes/portal-collections';
import { portalEntityRoutes } from './routes/portal-entities';
import { portalRecordRoutes } from './routes/portal-records';
import { portalReplaceRoutes } from './routes/portal-replace';
import { recordBulkRoutes } from './routes/records-bulk';
import { recordRoutes } from './routes/records';
import { replaceInternalRoutes } from './routes/replace-internal';
import { visibilityRoutes } from './routes/visibility';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  records: RecordsService;
  replace: ReplaceService;
  portal: PortalService;
  admin: AdminService;
  /** Absent where an app is built without background work (the bulk-upsert bench): no export routes then. */
  exports?: ExportService;
}

/** Composes the records HTTP app from its dependencies; it never listens. */
export function buildApp({ config, logger, readiness, records, portal, replace, admin, exports }: AppDeps): ReturnType<typeof createServiceApp> {
  return createServiceApp({
    name: 'records',
    logger,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    // The bulk upsert parses its own, larger body (routes/bulk-upsert.ts). The path holds no pattern characters.
    rawBodyPaths: [new RegExp(`^${RECORDS_BULK_UPSERT.path}/?$`)],
    readiness,
    routes: (router) => {
      // Fixed paths first: /records/bulk and friends would otherwise be taken for a record id.
      bulkUpsertRoutes(router, records);
      recordBulkRoutes(router, records);
      adminReindexRoutes(router, records);
      adminStatsRoutes(router, admin);
      if (exports) exportRoutes(router, exports);
      visibilityRoutes(router, records);
      collectionRoutes(router, records);
      internalPublicRecordRoutes(router, records);
      internalCollectionStatsRoutes(router, records);
      replaceInternalRoutes(router, replace);
      portalReplaceRoutes(router, replace);
      recordRoutes(router, records);
      entityRoutes(router, records);
      portalRecordRoutes(router, records, portal);
      portalCollectionRoutes(router, records, portal);
      portalEntityRoutes(router, records);
    },
  });
}
