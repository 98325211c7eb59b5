import { z } from 'zod';
import { collectionName, queryInteger, recordType, visibility } from '@trove/contracts';
import { parseInput, requirePortalUser, tenantOf, type Router } from '@trove/platform';
import type { PortalService } from '../portal-service';
import type { RecordsService } from '../records-service';
import { recordHandlers } from './records';
import { idParams, recordUpdate } from './request-schemas';
import { CURRENT } from './vocabulary';

/** Unknown query parameters are ignored, as caches and proxies add their own. */
const browseQuery = z.object({
  collection: collectionName,
  record_type: recordType.optional(),
  limit: queryInteger(1, 100, 20),
  offset: queryInteger(0, 999_999_999, 0),
});

/** What the portal may change of a record (spec: name, collection_data merged, visibility, source_name); nothing else. */
export const portalRecordUpdate = recordUpdate.pick({ name: true, collection_data: true, visibility: true, source_name: true });

const visibilityBody = z.strictObject({ visibility });

/** The portal's record routes: a signed-in person's view of their tenant's records (keys are refused with 401). */
export function portalRecordRoutes(router: Router, records: RecordsService, portal: PortalService): void {
  const signedIn = requirePortalUser();

  router.get('/portal/records', signedIn, async (req, res) => {
    const query = parseInput(browseQuery, req.query, 'query');
    res.json(
      await portal.browse({ tenantId: tenantOf(req), collection: query.collection, recordType: query.record_type, limit: query.limit, offset: query.offset }),
    );
  });

  const handlers = recordHandlers(records, CURRENT, portalRecordUpdate);
  router.get('/portal/records/:id', signedIn, handlers.read);
  router.patch('/portal/records/:id', signedIn, handlers.update);
  router.delete('/portal/records/:id', signedIn, handlers.archive);

  /** One record is one indexing job. */
  router.post('/portal/records/:id/reindex', signedIn, async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    await records.reindexRecord(tenantOf(req), id);
    res.json({ record_id: id, jobs: 1 });
  });

  router.patch('/portal/records/:id/visibility', signedIn, async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    const body = parseInput(visibilityBody, req.body, 'body');
    const tenantId = tenantOf(req);
    await records.setVisibility(tenantId, id, body.visibility);
    const record = await records.get(tenantId, id);
    res.json({ id: record.id, visibility: record.visibility, updated_at: record.updated_at });
  });
}
