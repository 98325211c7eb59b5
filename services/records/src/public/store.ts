import { sql } from 'kysely';
import { prepared } from '@trove/db';
import { RECORD_COLUMNS, toDto, type RecordRow } from '../records/store';
import type { Executor } from '../shared/schema';

/**
 * What anyone may see of records `r` in collections `c`: public, active, and of the collection's active generation (a
 * staging generation stays hidden until its swap). Read from the system of record, so a record made private is
 * gone here the moment the change commits, whatever an index still holds.
 */
const PUBLICLY_VISIBLE = sql<boolean>`r.visibility = 'public' and r.status = 'active' and r.generation = c.active_generation`;

/** The records among `ids` that anyone may see (PUBLICLY_VISIBLE). */
export async function publicRecords(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('records.records as r')
    .innerJoin('records.collections as c', (j) => j.onRef('c.tenant_id', '=', 'r.tenant_id').onRef('c.name', '=', 'r.collection'))
    .innerJoin('records.indexing as i', 'i.record_id', 'r.id')
    .select([...RECORD_COLUMNS, 'i.status as indexing_status'])
    .where('r.id', 'in', ids)
    .where(PUBLICLY_VISIBLE)
    .execute();
  return rows.map((row) => toDto(row as RecordRow));
}

/**
 * Which of `ids` anyone may see right now (PUBLICLY_VISIBLE), each with its tenant, without reading the
 * records themselves. `ids` are UUIDs (the route validates them). Each id is looked up by the primary key: written as
 * `id = any(...)`, the planner could also read the tenants' whole active-records index and intersect the two.
 */
export async function publicVisible(db: Executor, ids: string[]): Promise<Array<{ id: string; tenant_id: string }>> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string; tenant_id: string }>`${prepared}
    select r.id, r.tenant_id from unnest(${`{${ids.join(',')}}`}::uuid[]) as asked(id)
    join records.records r on r.id = asked.id
    join records.collections c on c.tenant_id = r.tenant_id and c.name = r.collection
    where ${PUBLICLY_VISIBLE}`.execute(db);
  return rows;
}
