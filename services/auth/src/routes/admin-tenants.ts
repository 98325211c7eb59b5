import type { Router } from 'express';
import { ADMIN_TENANTS } from '@trove/contracts';
import { requireScope, serve, tenantOf } from '@trove/platform';
import type { TenantAdminService } from '../tenant-admin-service';

/** GET /admin/tenants (admin scope): the caller's tenant, its active record count, collections and creation time. */
export function adminTenantRoutes(router: Router, tenants: TenantAdminService): void {
  serve(router, ADMIN_TENANTS, [requireScope('admin')], (_input, req) => tenants.tenants(tenantOf(req), req.id as string | undefined));
}
