import {
  PORTAL_RECORD_ARCHIVE,
  PORTAL_RECORD_BROWSE,
  PORTAL_RECORD_READ,
  PORTAL_RECORD_REINDEX,
  PORTAL_RECORD_UPDATE,
  PORTAL_RECORD_VISIBILITY,
} from '@trove/contracts';
import { handle, parseInput, requirePortalUser, serve, tenantOf, type Router } from '@trove/platform';
import type { PortalService } from '../portal-service';
import type { RecordsService } from '../records-service';
import { archiveRecord, updateHandler } from './records';
import { CURRENT } from './vocabulary';

/** The portal's record routes: a signed-in person's view of their tenant's records (keys are refused with 401). */
export function portalRecordRoutes(router: Router, records: RecordsService, portal: PortalService): void {
  const signedIn = requirePortalUser();

  serve(router, PORTAL_RECORD_BROWSE, [signedIn], ({ query }, req) =>
    portal.browse({ tenantId: tenantOf(req), collection: query.collection, recordType: query.record_type, limit: query.limit, offset: query.offset }),
  );

  serve(router, PORTAL_RECORD_READ, [signedIn], ({ params }, req) => records.get(tenantOf(req), params.id));
  handle(router, PORTAL_RECORD_UPDATE, signedIn, updateHandler(records, CURRENT, PORTAL_RECORD_UPDATE));
  serve(router, PORTAL_RECORD_ARCHIVE, [signedIn], archiveRecord(records));

  /** One record is one indexing job. */
  serve(router, PORTAL_RECORD_REINDEX, [signedIn], async ({ params }, req) => {
    await records.reindexRecord(tenantOf(req), params.id);
    return { record_id: params.id, jobs: 1 };
  });

  // The body is read as sent (an absent body is a 422 on `body`), so the handler parses it itself.
  handle(router, PORTAL_RECORD_VISIBILITY, signedIn, async (req, res) => {
    const { id } = parseInput(PORTAL_RECORD_VISIBILITY.params, req.params, 'path');
    const body = parseInput(PORTAL_RECORD_VISIBILITY.body, req.body, 'body');
    const tenantId = tenantOf(req);
    await records.setVisibility(tenantId, id, body.visibility);
    const record = await records.get(tenantId, id);
    res.json({ id: record.id, visibility: record.visibility, updated_at: record.updated_at });
  });
}
