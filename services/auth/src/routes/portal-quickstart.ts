import type { Router } from 'express';
import { PORTAL_QUICKSTART } from '@trove/contracts';
import { requirePortalUser, serve, tenantOf } from '@trove/platform';
import type { QuickstartService } from '../quickstart-service';

/** GET /portal/quickstart: the four first steps of an account, each completed by what proves it. */
export function portalQuickstartRoutes(router: Router, quickstart: QuickstartService): void {
  serve(router, PORTAL_QUICKSTART, [requirePortalUser()], (_input, req) => quickstart.quickstart(tenantOf(req)));
}
