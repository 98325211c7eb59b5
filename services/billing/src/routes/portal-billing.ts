import { PORTAL_BILLING_CHECKOUT, PORTAL_BILLING_PORTAL, PORTAL_BILLING_STATUS } from '@trove/contracts';
import { requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import type { PortalBillingService } from '../stripe/portal-billing-service';

/**
 * POST /portal/billing/checkout: a checkout session's URL for a paid plan.
 * POST /portal/billing/portal: the provider's customer-portal URL for a paying customer.
 * GET /portal/billing/status: the tenant's plan, subscription and period end.
 * Mounted only in cloud mode; self-hosted, every path here answers 404 as an unknown route.
 */
export function portalBillingRoutes(router: Router, billing: PortalBillingService): void {
  const portalUser = requirePortalUser();

  serve(router, PORTAL_BILLING_CHECKOUT, [portalUser], ({ body }, req) => billing.checkout(tenantOf(req), body));
  serve(router, PORTAL_BILLING_PORTAL, [portalUser], ({ body }, req) => billing.portal(tenantOf(req), body.return_url));
  serve(router, PORTAL_BILLING_STATUS, [portalUser], (_input, req) => billing.status(tenantOf(req)));
}
