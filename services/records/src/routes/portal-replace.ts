import { z } from 'zod';
import { collectionName } from '@trove/contracts';
import { parseInput, requirePortalUser, tenantOf, type Router } from '@trove/platform';
import type { ReplaceService } from '../replace-service';

const collectionParams = z.object({ name: collectionName });

/** The portal's side of a blue-green replace: its status, the swap and the cancel (the upload is ingestion's). */
export function portalReplaceRoutes(router: Router, replace: ReplaceService): void {
  router.get('/portal/collections/:name/replace-status', requirePortalUser(), async (req, res) => {
    const { name } = parseInput(collectionParams, req.params, 'path');
    res.json(await replace.status(tenantOf(req), name));
  });

  router.post('/portal/collections/:name/swap', requirePortalUser(), async (req, res) => {
    const { name } = parseInput(collectionParams, req.params, 'path');
    res.json(await replace.swap(tenantOf(req), name));
  });

  router.post('/portal/collections/:name/cancel-replace', requirePortalUser(), async (req, res) => {
    const { name } = parseInput(collectionParams, req.params, 'path');
    res.json(await replace.cancel(tenantOf(req), name));
  });
}
