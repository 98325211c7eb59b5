import { z } from 'zod';
import { PLANS } from '@trove/contracts';
import { parseInput, requirePortalUser, tenantOf, type Router } from '@trove/platform';
import type { PortalBillingService } from '../stripe/portal-billing-service';

/** Where the provider sends the person back: an absolute http(s) address. */
const returnAddress = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/ }));

// A name that is no plan at all is a 422 (invalid plan name); a plan that exists but is not sold is the route's 400.
const checkoutBody = z.object({ plan: z.enum(PLANS), success_url: returnAddress, cancel_url: returnAddress });
const portalBody = z.object({ return_url: returnAddress });

/**
 * POST /portal/billing/checkout: a checkout session's URL for a paid plan.
 * POST /portal/billing/portal: the provider's customer-portal URL for a paying customer.
 * GET /portal/billing/status: the tenant's plan, subscription and period end.
 * Mounted only in cloud mode; self-hosted, every path here answers 404 as an unknown route.
 */
export function portalBillingRoutes(router: Router, billing: PortalBillingService): void {
  const portalUser = requirePortalUser();

  router.post('/portal/billing/checkout', portalUser, async (req, res) => {
    const body = parseInput(checkoutBody, req.body ?? {}, 'body');
    res.json(await billing.checkout(tenantOf(req), body));
  });

  router.post('/portal/billing/portal', portalUser, async (req, res) => {
    const body = parseInput(portalBody, req.body ?? {}, 'body');
    res.json(await billing.portal(tenantOf(req), body.return_url));
  });

  router.get('/portal/billing/status', portalUser, async (req, res) => {
    res.json(await billing.status(tenantOf(req)));
  });
}
