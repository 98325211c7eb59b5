import type { Router } from 'express';
import { requirePortalUser, tenantOf } from '@trove/platform';
import type { QuickstartService } from '../quickstart-service';

/** GET /portal/quickstart: the four first steps of an account, each completed by what proves it. */
export function portalQuickstartRoutes(router: Router, quickstart: QuickstartService): void {
  router.get('/portal/quickstart', requirePortalUser(), async (req, res) => {
    res.json(await quickstart.quickstart(tenantOf(req)));
  });
}
