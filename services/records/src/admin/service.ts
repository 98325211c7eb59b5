import type { EventBus } from '@trove/bus';
import { SEARCH_INDEXER_GROUP, TOPICS } from '@trove/contracts';
import type { Db } from '../shared/schema';
import { tenantRecordCounts } from './store';

export interface AdminStats {
  total_records: number;
  records_by_status: { active: number; archived: number; draft: number };
  indexing_status: { indexed: number; pending: number; processing: number; failed: number };
  queue_depth: number;
}

/** The admin view of a tenant's records: how many there are and how far search is behind with them. */
export class AdminService {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
  ) {}

  /**
   * queue_depth is the tenant's records awaiting indexing (pending or processing) plus the search indexer's consumer
   * lag: the record changes, of every tenant, that search has yet to read, which the tenant's next write waits behind.
   */
  async stats(tenantId: string): Promise<AdminStats> {
    const [counts, lag] = await Promise.all([tenantRecordCounts(this.db, tenantId), this.bus.lag(SEARCH_INDEXER_GROUP, [TOPICS.recordsChanged])]);
    const byStatus = counts.records_by_status;
    return {
      total_records: byStatus.active + byStatus.archived + byStatus.draft,
      records_by_status: byStatus,
      indexing_status: counts.indexing_status,
      queue_depth: counts.indexing_status.pending + counts.indexing_status.processing + lag,
    };
  }
}
