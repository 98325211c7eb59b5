import { z } from 'zod';
import { parseInput, requirePortalUser } from '@trove/platform';
import { toEntity } from '../domain/entity';
import type { Router } from '../http';
import type { RecordsService } from '../records-service';
import { collectionHandlers } from './portal-collections';
import { portalRecordUpdate, recordHandlers } from './portal-records';

/** The portal's record update in the older vocabulary: vertical_data for collection_data. */
const entityUpdate = z.strictObject({
  ...portalRecordUpdate.omit({ collection_data: true }).shape,
  vertical_data: portalRecordUpdate.shape.collection_data,
});

/**
 * The older portal vocabulary (spec, Older portal): entities and verticals, served by the portal's record and
 * collection handlers with entity names in and out.
 */
export function portalEntityRoutes(router: Router, records: RecordsService): void {
  const signedIn = requirePortalUser();

  const entities = recordHandlers(records, toEntity, (body) => {
    const { vertical_data, ...rest } = parseInput(entityUpdate, body, 'body');
    return { ...rest, collection_data: vertical_data };
  });
  router.get('/portal/entities/:id', signedIn, entities.read);
  router.patch('/portal/entities/:id', signedIn, entities.update);
  router.delete('/portal/entities/:id', signedIn, entities.archive);

  const verticals = collectionHandlers(records, {
    archived: (name, n) => ({ vertical: name, entities_archived: n }),
    queued: (name, n) => ({ vertical: name, entities_queued: n }),
  });
  router.delete('/portal/verticals/:name', signedIn, verticals.archive);
  router.post('/portal/verticals/:name/reindex', signedIn, verticals.reindex);
}
