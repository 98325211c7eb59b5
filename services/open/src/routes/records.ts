import { z } from 'zod';
import { fields, parseInput, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';

const idParams = z.object({ record_id: fields.uuid });

export function recordRoutes(router: Router, open: OpenService): void {
  /** Missing, private, draft and archived records answer the same 404, so nothing about them leaks. */
  router.get('/records/:record_id', async (req, res) => {
    const { record_id } = parseInput(idParams, req.params, 'path');
    res.json(await open.record(record_id, req.id));
  });
}
