import { z } from 'zod';
import { parseInput, type Router } from '@trove/platform';
import type { OpenService } from '../open-service';
import { collection } from './request-schemas';

const listQuery = z.object({ q: z.string().max(200).trim().optional() });
const collectionParams = z.object({ collection });

export function collectionRoutes(router: Router, open: OpenService): void {
  router.get('/collections', async (req, res) => {
    const { q } = parseInput(listQuery, req.query, 'query');
    res.json(await open.collections(q || undefined, req.id));
  });

  router.get('/collections/:collection/schema', async (req, res) => {
    const params = parseInput(collectionParams, req.params, 'path');
    res.json(await open.schema(params.collection, req.id));
  });
}
