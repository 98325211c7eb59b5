import { sql } from 'kysely';
import { copyInto } from '@trove/db';
import { byId } from '../shared/lock-order';
import type { Executor, IndexingStatus, Trx } from '../shared/schema';

/**
 * records.indexing: where each record stands in search's indexing, at the version search was asked to index. Writes
 * to records (records/store.ts and the other features' stores) set it here; search's acknowledgements settle it.
 */

/**
 * The first indexing rows of records a write creates, pending at version 1. New records have no indexing row yet, and
 * no other transaction can hold one of their ids: plain inserts.
 */
export async function startIndexing(trx: Trx, tenantId: string, records: Array<{ id: string }>): Promise<void> {
  await copyInto(
    trx,
    'records.indexing',
    ['record_id', 'tenant_id', 'version', 'status'],
    records.map((r) => [r.id, tenantId, 1, 'pending']),
  );
}

/**
 * Sets the indexing of records a write just changed to pending at the version it gave them, so search's
 * acknowledgement of that version (and no older one) settles it. Every write that changes a record calls it;
 * insertRecords writes the first indexing row of the records it creates with startIndexing.
 */
export async function markPending<T extends { id: string; version: number }>(trx: Trx, tenantId: string, rows: T[]): Promise<T[]> {
  if (rows.length === 0) return rows;
  await sql`
    insert into records.indexing (record_id, tenant_id, version, status)
    select x.id, ${tenantId}, x.version, 'pending'
    from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.version)}::integer[]) as x(id, version)
    order by x.id
    on conflict (record_id) do update set version = excluded.version, status = 'pending'
  `.execute(trx);
  return rows;
}

export interface Acknowledgement {
  tenantId: string;
  recordId: string;
  version: number;
  /** processing: a pipeline job took the version (it moves only a pending record). */
  status: 'processing' | 'indexed' | 'failed';
}

/**
 * Records search's acknowledgements, each only for the version its record is at now, in one statement for any
 * number of them; returns those that applied. (One statement and one commit per delivered batch: an upload of
 * 100,000 records is acknowledged 100,000 times.)
 */
export async function acknowledgeIndexing(db: Executor, acks: Acknowledgement[]): Promise<Acknowledgement[]> {
  if (acks.length === 0) return [];
  // An update joins each row once: of a version's acknowledgements only the last settled one (a job's processing
  // delivered with its outcome says nothing more) goes in.
  const latest = new Map<string, Acknowledgement>();
  for (const ack of acks) {
    const key = `${ack.recordId}:${ack.version}`;
    if (ack.status !== 'processing' || !latest.has(key)) latest.set(key, ack);
  }
  // In id order, the order writes mark records pending in (markPending), so the two never wait on each other in a circle.
  const rows = [...latest.values()]
    .map((a) => ({ tenant_id: a.tenantId, id: a.recordId, version: a.version, status: a.status }))
    .sort(byId);
  const result = await sql<{ record_id: string; version: number; status: Acknowledgement['status']; tenant_id: string }>`
    update records.indexing i set status = a.status
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as a(tenant_id text, id uuid, version integer, status text)
    where i.record_id = a.id and i.tenant_id = a.tenant_id and i.version = a.version and i.status is distinct from a.status
      and (a.status <> 'processing' or i.status = 'pending')
    returning i.tenant_id, i.record_id, i.version, i.status
  `.execute(db);
  return result.rows.map((r) => ({ tenantId: r.tenant_id, recordId: r.record_id, version: r.version, status: r.status }));
}

/**
 * The tenant's indexing backlog: records pending or being indexed (a partial index keeps this proportional to it),
 * counted up to `limit` when one is given.
 */
export async function countIndexingBacklog(db: Executor, tenantId: string, limit?: number): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*)::integer as n from (
      select 1 from records.indexing
      where tenant_id = ${tenantId} and status in ('pending', 'processing')
      ${limit === undefined ? sql`` : sql`limit ${limit}`}
    ) as backlog
  `.execute(db);
  return result.rows[0]!.n;
}

/** Every tenant's indexing backlog: records pending or being indexed (trove_indexing_backlog_records). */
export async function countAllIndexingBacklog(db: Executor): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::integer as n from records.indexing where status in ('pending', 'processing')`.execute(db);
  return result.rows[0]!.n;
}

/** How many of the tenant's records among `ids` are at each indexing status (archived ones included). */
export async function countIndexingStatuses(db: Executor, tenantId: string, ids: string[]): Promise<Record<IndexingStatus, number>> {
  const counts = { pending: 0, processing: 0, indexed: 0, failed: 0 };
  const result = await sql<{ status: IndexingStatus; n: number }>`
    select status, count(*)::int as n from records.indexing
    where tenant_id = ${tenantId} and record_id = any(${ids}::uuid[])
    group by status
  `.execute(db);
  for (const row of result.rows) counts[row.status] = row.n;
  return counts;
}

/** The ids of the tenant's records whose indexing is at one of `statuses`, as a subquery. */
export function indexingAt(db: Executor, tenantId: string, statuses: IndexingStatus[]) {
  return db.selectFrom('records.indexing').select('record_id').where('tenant_id', '=', tenantId).where('status', 'in', statuses);
}
