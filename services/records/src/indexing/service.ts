import type { IndexingSummary } from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import { activeGenerations } from '../collections/store';
import { archived, notFound } from '../records/by-id';
import { findRecord } from '../records/store';
import { CURRENT_WRITE, PIPELINE_WRITE, type RecordWrites, type WriteOrigin } from '../records/writes';
import type { Db } from '../shared/schema';
import { requeueRecords, resetFailed, resetForReindex } from './reindex-store';
import { countIndexingStatuses } from './store';

/**
 * Where records stand in search's indexing, and sending them through it again: each goes back to pending with a new
 * version, so its records.changed event flows through the normal pipeline.
 */
export class IndexingService {
  constructor(
    private readonly db: Db,
    private readonly writes: RecordWrites,
  ) {}

  /** How the tenant's records among `ids` stand in indexing (the older pipeline status of an upload). */
  async summary(tenantId: string, ids: string[]): Promise<IndexingSummary> {
    const counts = await countIndexingStatuses(this.db, tenantId, ids);
    return { total: counts.pending + counts.processing + counts.indexed + counts.failed, ...counts };
  }

  /**
   * Queues the tenant's live pending or failed records among `ids` for the older pipeline (POST /pipeline/trigger);
   * returns how many.
   */
  async requeue(tenantId: string, ids: string[]): Promise<number> {
    return this.writes.write(async (trx, announce) => announce('upserted', await requeueRecords(trx, tenantId, ids)).length, PIPELINE_WRITE);
  }

  /** Queues every live record of a collection for indexing again; 404 when the tenant has no such collection. */
  async reindexCollection(tenantId: string, collection: string, origin: WriteOrigin = CURRENT_WRITE): Promise<number> {
    return this.writes.write(async (trx, announce) => {
      const reset = announce('upserted', await resetForReindex(trx, tenantId, { collection }));
      if (reset.length === 0 && (await activeGenerations(trx, tenantId, [collection])).size === 0) {
        throw ERRORS.notFound(`Collection ${collection} not found`);
      }
      return reset.length;
    }, origin);
  }

  /** Queues one record for indexing again; 404 when it does not exist, 409 when it is archived. */
  async reindexRecord(tenantId: string, id: string): Promise<void> {
    await this.writes.write(async (trx, announce) => {
      if (announce('upserted', await resetForReindex(trx, tenantId, { id })).length > 0) return;
      const row = await findRecord(trx, tenantId, id);
      if (!row) throw notFound(id);
      throw archived(id);
    });
  }

  /** Sends records whose indexing failed back to pending, each with a new version, so the pipeline retries them. */
  async retryFailed(tenantId: string, origin: WriteOrigin = CURRENT_WRITE): Promise<number> {
    return this.writes.write(async (trx, announce) => announce('upserted', await resetFailed(trx, tenantId)).length, origin);
  }
}
