import { PORTAL_ANALYTICS } from '@trove/contracts';
import { requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import { portalAnalytics } from '../portal-analytics';
import type { SearchCounter } from '../search-counter';
import type { PublicIndex } from '../public-index';

/** PORTAL_ANALYTICS: the signed-in person's tenant's Open searches per collection this month, with its counts. */
export function portalAnalyticsRoutes(router: Router, deps: { upstreams: PublicIndex; counter: SearchCounter }): void {
  serve(router, PORTAL_ANALYTICS, [requirePortalUser()], (_input, req) => portalAnalytics(deps, tenantOf(req), req.id));
}
