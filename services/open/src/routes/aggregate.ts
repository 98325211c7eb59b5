import { z } from 'zod';
import { parseInput } from '@trove/platform';
import type { Router } from '../http';
import type { OpenService } from '../open-service';
import { collection, field, filters } from './request-schemas';

const aggregateBody = z.strictObject({
  collection: collection.optional(),
  filters: filters.default({}),
  group_by: field.optional(),
  stats: z.array(field).max(5).default([]),
});

/** Total, the 50 largest groups (ties by value) and numeric stats over the public records the filters select. */
export function aggregateRoutes(router: Router, open: OpenService): void {
  router.post('/aggregate', async (req, res) => {
    const body = parseInput(aggregateBody, req.body ?? {}, 'body');
    res.json(await open.aggregate(body, req.id));
  });
}
