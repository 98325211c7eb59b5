import { COLLECTION_DEFAULT_VISIBILITY, COLLECTION_LIST } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

export function collectionRoutes(router: Router, records: RecordsService): void {
  serve(router, COLLECTION_LIST, [requireScope('records')], async (_input, req) => ({ collections: await records.collections(tenantOf(req)) }));

  /**
   * Only records created afterwards take the new default; existing records keep their visibility. The body is read as
   * sent (an absent body is a 422 on `body`), so the handler parses it itself.
   */
  handle(router, COLLECTION_DEFAULT_VISIBILITY, requireScope('records'), async (req, res) => {
    const params = parseInput(COLLECTION_DEFAULT_VISIBILITY.params, req.params, 'path');
    const body = parseInput(COLLECTION_DEFAULT_VISIBILITY.body, req.body, 'body');
    await records.setDefaultVisibility(tenantOf(req), params.collection, body.default_visibility);
    res.json({ collection: params.collection, default_visibility: body.default_visibility });
  });
}
