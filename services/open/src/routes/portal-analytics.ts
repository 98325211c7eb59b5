import { requirePortalUser, tenantOf, type Router } from '@trove/platform';
import { portalAnalytics } from '../portal-analytics';
import type { SearchCounter } from '../search-counter';
import type { Upstreams } from '../upstream';

/** GET /portal/analytics: the signed-in person's tenant's Open searches per collection this month, with its counts. */
export function portalAnalyticsRoutes(router: Router, deps: { upstreams: Upstreams; counter: SearchCounter }): void {
  router.get('/portal/analytics', requirePortalUser(), async (req, res) => {
    res.json(await portalAnalytics(deps, tenantOf(req), req.id));
  });
}
