import {
  ADMIN_REINDEX_COLLECTION,
  ADMIN_REINDEX_RECORD,
  ENTITY_RETRY_RESET,
  PORTAL_COLLECTION_REINDEX,
  PORTAL_RECORD_REINDEX,
  PORTAL_VERTICAL_REINDEX,
  RECORD_RETRY_RESET,
  RECORDS_INDEXING_SUMMARY,
  RECORDS_REQUEUE,
} from '@trove/contracts';
import { jsonBody, requirePortalUser, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { CURRENT, OLDER, type RecordVocabulary } from '../records/vocabulary';
import { CURRENT_WRITE, PIPELINE_WRITE } from '../records/writes';
import type { Handler } from '../shared/http';
import type { IndexingService } from './service';

/** A list of record ids reads at most this much JSON. */
const IDS_JSON_LIMIT = '1mb';

/** Failed records back to pending, retried by indexing (the older vocabulary's by the pipeline's jobs); served. */
function retryReset(indexing: IndexingService, v: RecordVocabulary) {
  return async (_input: unknown, req: Parameters<Handler>[0]) => ({ reset: await indexing.retryFailed(tenantOf(req), v.queues) });
}

/**
 * Sending records through indexing again, and where they stand in it, whoever asks: admin keys, API keys retrying
 * failed records, the portal (its records, collections and the older vocabulary's verticals), and ingestion's older
 * pipeline routes. Re-indexing flows through the normal pipeline: records go back to pending with a new version and
 * a new event.
 */
export function indexingRoutes(router: Router, indexing: IndexingService): void {
  serve(router, ADMIN_REINDEX_RECORD, [requireScope('admin')], async ({ params: { id } }, req) => {
    await indexing.reindexRecord(tenantOf(req), id);
    return { record_id: id, status: 'pending' as const, message: `Record ${id} queued for reindexing` };
  });

  serve(router, ADMIN_REINDEX_COLLECTION, [requireScope('admin')], async ({ params: { collection } }, req) => {
    const reset = await indexing.reindexCollection(tenantOf(req), collection);
    return { collection, records_reset: reset, message: `${reset} records of ${collection} queued for reindexing` };
  });

  serve(router, RECORD_RETRY_RESET, [requireScope('records')], retryReset(indexing, CURRENT));
  serve(router, ENTITY_RETRY_RESET, [requireScope('records')], retryReset(indexing, OLDER));

  const signedIn = requirePortalUser();
  /** One record is one indexing job. */
  serve(router, PORTAL_RECORD_REINDEX, [signedIn], async ({ params }, req) => {
    await indexing.reindexRecord(tenantOf(req), params.id);
    return { record_id: params.id, jobs: 1 };
  });
  serve(router, PORTAL_COLLECTION_REINDEX, [signedIn], async ({ params }, req) => ({
    collection: params.name,
    records_queued: await indexing.reindexCollection(tenantOf(req), params.name, CURRENT_WRITE),
  }));
  // A vertical's reindex queues its entities for the pipeline's jobs.
  serve(router, PORTAL_VERTICAL_REINDEX, [signedIn], async ({ params }, req) => ({
    vertical: params.name,
    entities_queued: await indexing.reindexCollection(tenantOf(req), params.name, PIPELINE_WRITE),
  }));

  // The older pipeline routes of ingestion: where an upload's records stand in indexing, and queueing them again.
  serve(router, RECORDS_INDEXING_SUMMARY, [requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT)], ({ body }, req) =>
    indexing.summary(tenantOf(req), body.ids),
  );
  serve(router, RECORDS_REQUEUE, [requireScope('upload', 'records'), jsonBody(IDS_JSON_LIMIT)], async ({ body }, req) => ({
    requeued: await indexing.requeue(tenantOf(req), body.ids),
  }));
}
