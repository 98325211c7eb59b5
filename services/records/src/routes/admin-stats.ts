import { requireScope, tenantOf, type Router } from '@trove/platform';
import type { AdminService } from '../admin-service';

/** GET /admin/stats: the caller's tenant's records by status and indexing status, and the indexing queue's depth. */
export function adminStatsRoutes(router: Router, admin: AdminService): void {
  router.get('/admin/stats', requireScope('admin'), async (req, res) => {
    res.json(await admin.stats(tenantOf(req)));
  });
}
