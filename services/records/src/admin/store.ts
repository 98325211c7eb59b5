import { sql } from 'kysely';
import type { Executor, IndexingStatus, RecordsTable } from '../shared/schema';

export interface TenantRecordCounts {
  records_by_status: Record<RecordsTable['status'], number>;
  indexing_status: Record<IndexingStatus, number>;
}

/**
 * A tenant's records counted by status (every generation: a replace's staging records are active records too) and by
 * where search stands with them. Two grouped counts, each over one of the tenant's index ranges.
 */
export async function tenantRecordCounts(db: Executor, tenantId: string): Promise<TenantRecordCounts> {
  const counts: TenantRecordCounts = {
    records_by_status: { active: 0, archived: 0, draft: 0 },
    indexing_status: { indexed: 0, pending: 0, processing: 0, failed: 0 },
  };
  const [byStatus, byIndexing] = await Promise.all([
    sql<{ status: RecordsTable['status']; n: number }>`
      select status, count(*)::int as n from records.records where tenant_id = ${tenantId} group by status
    `.execute(db),
    sql<{ status: IndexingStatus; n: number }>`
      select status, count(*)::int as n from records.indexing where tenant_id = ${tenantId} group by status
    `.execute(db),
  ]);
  for (const row of byStatus.rows) counts.records_by_status[row.status] = row.n;
  for (const row of byIndexing.rows) counts.indexing_status[row.status] = row.n;
  return counts;
}
