import { RECORD_VISIBILITY } from '@trove/contracts';
import { handle, parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';

export function visibilityRoutes(router: Router, records: RecordsService): void {
  // The body is read as sent (an absent body is a 422 on `body`), so the handler parses it itself.
  handle(router, RECORD_VISIBILITY, requireScope('records'), async (req, res) => {
    const { id } = parseInput(RECORD_VISIBILITY.params, req.params, 'path');
    const body = parseInput(RECORD_VISIBILITY.body, req.body, 'body');
    await records.setVisibility(tenantOf(req), id, body.visibility);
    res.json({ id, visibility: body.visibility });
  });
}
