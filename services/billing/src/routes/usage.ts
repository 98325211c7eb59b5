import { BILLING_USAGE, PORTAL_USAGE, USAGE } from '@trove/contracts';
import { identityOf, requirePortalUser, serve, type Router } from '@trove/platform';
import type { UsageService } from '../usage-service';

/**
 * GET /usage (any valid key, whatever its scopes): the tenant's requests, searches and records of the month.
 * GET /portal/usage: the signed-in person's tenant's plan, this month's usage and what lies beyond the plan.
 * BILLING_USAGE: the counted requests and searches of a tenant's month, for other services.
 */
export function usageRoutes(router: Router, usage: UsageService): void {
  serve(router, USAGE, (_input, req) => usage.keyUsage(identityOf(req).tenantId, req.id as string | undefined));
  serve(router, PORTAL_USAGE, [requirePortalUser()], (_input, req) => usage.portalUsage(identityOf(req).tenantId, req.id as string | undefined));
  serve(router, BILLING_USAGE, ({ query }) => usage.counted(query.tenant_id.toLowerCase()));
}
