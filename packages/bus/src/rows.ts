import { sql, type Transaction } from 'kysely';
import type { OutgoingEvent } from './port';

/**
 * Appends events to an event table (the embedded log or the outbox) in one statement. The rows travel as a single
 * JSON parameter rather than three bind parameters each: for a 1,000-record chunk that is one value to send and
 * parse instead of 3,000. Rows are numbered in the order given.
 */
export async function insertEventRows(trx: Transaction<any>, table: 'bus.events' | 'bus.outbox', events: OutgoingEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = JSON.stringify(events.map((e) => ({ t: e.topic, k: e.key, p: e.payload ?? null })));
  await sql`
    insert into ${sql.table(table)} (topic, key, payload)
    select e.value->>'t', e.value->>'k', e.value->'p'
    from json_array_elements(${rows}::json) with ordinality as e(value, ord)
    order by e.ord
  `.execute(trx);
}
