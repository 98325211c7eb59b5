import { ADMIN_STATS } from '@trove/contracts';
import { requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { AdminService } from './service';

/** GET /admin/stats: the caller's tenant's records by status and indexing status, and the indexing queue's depth. */
export function adminStatsRoutes(router: Router, admin: AdminService): void {
  serve(router, ADMIN_STATS, [requireScope('admin')], (_input, req) => admin.stats(tenantOf(req)));
}
