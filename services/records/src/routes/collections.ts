import { z } from 'zod';
import { collectionName, visibility } from '@trove/contracts';
import { parseInput, requireScope, tenantOf } from '@trove/platform';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';

const collectionParams = z.object({ collection: collectionName });
const defaultVisibilityBody = z.strictObject({ default_visibility: visibility });

export function collectionRoutes(router: Router, records: RecordsService): void {
  /** Only records created afterwards take the new default; existing records keep their visibility. */
  router.patch('/collections/:collection/default-visibility', requireScope('records'), async (req, res) => {
    const params = parseInput(collectionParams, req.params, 'path');
    const body = parseInput(defaultVisibilityBody, req.body, 'body');
    await records.setDefaultVisibility(tenantOf(req), params.collection, body.default_visibility);
    res.json({ collection: params.collection, default_visibility: body.default_visibility });
  });
}
