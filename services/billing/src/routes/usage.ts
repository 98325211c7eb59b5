import { z } from 'zod';
import { BILLING_USAGE_PATH } from '@trove/contracts';
import { fields, identityOf, parseInput, requirePortalUser } from '@trove/platform';
import type { Router } from '../http';
import type { UsageService } from '../usage-service';

const internalQuery = z.object({ tenant_id: fields.uuid });

/**
 * GET /usage (any valid key, whatever its scopes): the tenant's requests, searches and records of the month.
 * GET /portal/usage: the signed-in person's tenant's plan, this month's usage and what lies beyond the plan.
 * GET BILLING_USAGE_PATH: the counted requests and searches of a tenant's month, for other services.
 */
export function usageRoutes(router: Router, usage: UsageService): void {
  router.get('/usage', async (req, res) => {
    res.json(await usage.keyUsage(identityOf(req).tenantId, req.id as string | undefined));
  });
  router.get('/portal/usage', requirePortalUser(), async (req, res) => {
    res.json(await usage.portalUsage(identityOf(req).tenantId, req.id as string | undefined));
  });
  router.get(BILLING_USAGE_PATH, async (req, res) => {
    const q = parseInput(internalQuery, req.query, 'query');
    res.json(await usage.counted(q.tenant_id.toLowerCase()));
  });
}
