import { sql } from 'kysely';
import { prepared } from '@trove/db';
import { RECORD_COLUMNS, toDto, type RecordRow } from './records';
import type { Executor } from './schema';

/**
 * The records among `ids` that anyone may see: public, active, and of their collection's active generation (a
 * staging generation stays hidden until its swap). Read from the system of record, so a record made private is
 * gone here the moment the change commits, whatever an index still holds.
 */
export async function publicRecords(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('records.records as r')
    .innerJoin('records.collections as c', (j) => j.onRef('c.tenant_id', '=', 'r.tenant_id').onRef('c.name', '=', 'r.collection'))
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .select([...RECORD_COLUMNS, 'i.status as indexing_status'])
    .where('r.id', 'in', ids)
    .where('r.visibility', '=', 'public')
    .where('r.status', '=', 'active')
    .where(sql<boolean>`r.generation = c.active_generation`)
    .execute();
  return rows.map((row) => toDto(row as RecordRow));
}

/**
 * Which of `ids` anyone may see right now (as publicRecords decides), each with its tenant, without reading the
 * records themselves. `ids` are UUIDs (the route validates them). Each id is looked up by the primary key: written as
 * `id = any(...)`, the planner could also read the tenants' whole active-records index and intersect the two.
 */
export async function publicVisible(db: Executor, ids: string[]): Promise<Array<{ id: string; tenant_id: string }>> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string; tenant_id: string }>`${prepared}
    select r.id, r.tenant_id from unnest(${`{${ids.join(',')}}`}::uuid[]) as asked(id)
    join records.records r on r.id = asked.id
    join records.collections c on c.tenant_id = r.tenant_id and c.name = r.collection
    where r.visibility = 'public' and r.status = 'active' and r.generation = c.active_generation`.execute(db);
  return rows;
}
