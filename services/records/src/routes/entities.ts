import { requireScope, type Router } from '@trove/platform';
import type { RecordsService } from '../records-service';
import { recordHandlers } from './records';
import { bulkHandlers } from './records-bulk';
import { OLDER } from './vocabulary';

/**
 * The older vocabulary's record routes (spec, Entities, older vocabulary): the /records handlers run with OLDER. An
 * entity is created pending and indexed by the pipeline's jobs; reads, updates, deletes and bulk calls behave as their
 * /records twins, in the older names.
 */
export function entityRoutes(router: Router, records: RecordsService): void {
  // Fixed paths first: /entities/bulk would otherwise be taken for an entity id.
  const bulk = bulkHandlers(records, OLDER);
  router.patch('/entities/bulk', requireScope('records'), bulk.update);
  router.post('/entities/bulk-delete', requireScope('records'), bulk.archive);
  router.post('/entities/retry-reset', requireScope('records'), bulk.retryReset);

  const entities = recordHandlers(records, OLDER);
  router.post('/entities', requireScope('records'), entities.create);
  router.get('/entities', requireScope('records'), entities.list);
  router.get('/entities/:id', requireScope('records'), entities.read);
  router.patch('/entities/:id', requireScope('records'), entities.update);
  router.delete('/entities/:id', requireScope('records'), entities.archive);
}
