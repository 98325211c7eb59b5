import { requirePortalUser, type Router } from '@trove/platform';
import { PIPELINE_WRITE, type RecordsService } from '../records-service';
import { collectionHandlers } from './portal-collections';
import { portalRecordUpdate } from './portal-records';
import { recordHandlers } from './records';
import { OLDER } from './vocabulary';

/**
 * The older portal vocabulary (spec, Older portal): entities and verticals, served by the portal's record and
 * collection handlers in the older vocabulary. A vertical's reindex queues its entities for the pipeline's jobs.
 */
export function portalEntityRoutes(router: Router, records: RecordsService): void {
  const signedIn = requirePortalUser();

  const entities = recordHandlers(records, OLDER, portalRecordUpdate);
  router.get('/portal/entities/:id', signedIn, entities.read);
  router.patch('/portal/entities/:id', signedIn, entities.update);
  router.delete('/portal/entities/:id', signedIn, entities.archive);

  const verticals = collectionHandlers(records, PIPELINE_WRITE, {
    archived: (name, n) => ({ vertical: name, entities_archived: n }),
    queued: (name, n) => ({ vertical: name, entities_queued: n }),
  });
  router.delete('/portal/verticals/:name', signedIn, verticals.archive);
  router.post('/portal/verticals/:name/reindex', signedIn, verticals.reindex);
}
