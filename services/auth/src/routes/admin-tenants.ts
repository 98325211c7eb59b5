import type { Router } from 'express';
import { requireScope, tenantOf } from '@trove/platform';
import type { TenantAdminService } from '../tenant-admin-service';

/** GET /admin/tenants (admin scope): the caller's tenant, its active record count, collections and creation time. */
export function adminTenantRoutes(router: Router, tenants: TenantAdminService): void {
  router.get('/admin/tenants', requireScope('admin'), async (req, res) => {
    res.json(await tenants.tenants(tenantOf(req), req.id as string | undefined));
  });
}
