import { z } from 'zod';
import { RECORDS_COLLECTIONS_PATH, collectionName, visibility, type CollectionsAnswer } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

const collectionParams = z.object({ collection: collectionName });
const defaultVisibilityBody = z.strictObject({ default_visibility: visibility });

export function collectionRoutes(router: Router, records: RecordsService): void {
  router.get(RECORDS_COLLECTIONS_PATH, requireScope('records'), async (req, res) => {
    const answer: CollectionsAnswer = { collections: await records.collections(tenantOf(req)) };
    res.json(answer);
  });

  /** Only records created afterwards take the new default; existing records keep their visibility. */
  router.patch('/collections/:collection/default-visibility', requireScope('records'), async (req, res) => {
    const params = parseInput(collectionParams, req.params, 'path');
    const body = parseInput(defaultVisibilityBody, req.body, 'body');
    await records.setDefaultVisibility(tenantOf(req), params.collection, body.default_visibility);
    res.json({ collection: params.collection, default_visibility: body.default_visibility });
  });
}
