import type { Router } from 'express';
import { requirePortalUser, tenantOf } from '@trove/platform';
import type { UsageService } from '../usage-service';

/** GET /portal/quickstart: the four first steps of an account, each completed by what proves it. */
export function portalQuickstartRoutes(router: Router, usage: UsageService): void {
  router.get('/portal/quickstart', requirePortalUser(), async (req, res) => {
    res.json(await usage.quickstart(tenantOf(req)));
  });
}
