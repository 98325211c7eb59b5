import { z } from 'zod';
import { visibility } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';
import { idParams } from './request-schemas';

const visibilityBody = z.strictObject({ visibility });

export function visibilityRoutes(router: Router, records: RecordsService): void {
  router.patch('/records/:id/visibility', requireScope('records'), async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    const body = parseInput(visibilityBody, req.body, 'body');
    await records.setVisibility(tenantOf(req), id, body.visibility);
    res.json({ id, visibility: body.visibility });
  });
}
