import type { Router } from 'express';
import { identityOf, requirePortalUser } from '@trove/platform';
import type { UsageService } from '../usage-service';

/** GET /portal/usage: the signed-in person's tenant's plan, this month's usage and what lies beyond the plan. */
export function portalUsageRoutes(router: Router, usage: UsageService): void {
  router.get('/portal/usage', requirePortalUser(), async (req, res) => {
    res.json(await usage.usage(identityOf(req), req.id as string | undefined));
  });
}
