import { z } from 'zod';
import { collectionName, planOf, visibility } from '@trove/contracts';
import { identityOf, parseInput, requirePortalUser, tenantOf, type Router } from '@trove/platform';
import { Handler } from '../http';
import type { PortalService } from '../portal-service';
import { CURRENT_WRITE, type RecordsService, type WriteOrigin } from '../records-service';

const nameParams = z.object({ name: collectionName });
const defaultVisibilityBody = z.strictObject({ default_visibility: visibility });

/** A collection action's answer in one vocabulary: the collection's name and how many records the action took. */
interface CountAnswers {
  archived(name: string, n: number): object;
  queued(name: string, n: number): object;
}

/** The handlers the portal's collection routes share with the older vocabulary's (/portal/verticals). */
export function collectionHandlers(records: RecordsService, reindexing: WriteOrigin, answer: CountAnswers): Record<'archive' | 'reindex', Handler> {
  /** Archives every record of the collection: gone from private search and the Open API once this answers. */
  const archive: Handler = async (req, res) => {
    const { name } = parseInput(nameParams, req.params, 'path');
    res.json(answer.archived(name, await records.archiveCollection(tenantOf(req), name)));
  };
  const reindex: Handler = async (req, res) => {
    const { name } = parseInput(nameParams, req.params, 'path');
    res.json(answer.queued(name, await records.reindexCollection(tenantOf(req), name, reindexing)));
  };
  return { archive, reindex };
}

/** The portal's collection routes (the blue-green replace routes under /portal/collections live in their own file). */
export function portalCollectionRoutes(router: Router, records: RecordsService, portal: PortalService): void {
  const signedIn = requirePortalUser();

  router.get('/portal/collections', signedIn, async (req, res) => {
    res.json(await portal.collections(tenantOf(req), planOf(identityOf(req).plan)));
  });

  const handlers = collectionHandlers(records, CURRENT_WRITE, {
    archived: (name, n) => ({ collection: name, records_archived: n }),
    queued: (name, n) => ({ collection: name, records_queued: n }),
  });
  router.delete('/portal/collections/:name', signedIn, handlers.archive);
  router.post('/portal/collections/:name/reindex', signedIn, handlers.reindex);

  /**
   * Unlike PATCH /collections/{name}/default-visibility, which only sets what future records take, the portal's also
   * gives every active record the new visibility. A collection not used yet is created (200): the default is then
   * ready for its first records.
   */
  router.patch('/portal/collections/:name/default-visibility', signedIn, async (req, res) => {
    const { name } = parseInput(nameParams, req.params, 'path');
    const body = parseInput(defaultVisibilityBody, req.body, 'body');
    const updated = await records.applyDefaultVisibility(tenantOf(req), name, body.default_visibility);
    res.json({ collection: name, default_visibility: body.default_visibility, records_updated: updated });
  });
}
