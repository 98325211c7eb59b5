import type { Transaction } from 'kysely';
import { copyInto } from '@trove/db';
import type { OutgoingEvent } from './port';

/**
 * Appends events to an event table (the embedded log or the outbox) with one COPY, numbered in the order given. COPY
 * spares PostgreSQL the parsing of a statement and of one JSON parameter holding every event, where the INSERT it
 * replaced spent most of its time (measured in bench/RESULTS.md, "rows written with COPY").
 */
export async function insertEventRows(trx: Transaction<any>, table: 'bus.events' | 'bus.outbox', events: OutgoingEvent[]): Promise<void> {
  await copyInto(
    trx,
    table,
    ['topic', 'key', 'payload'],
    events.map((e) => [e.topic, e.key, JSON.stringify(e.payload ?? null)]),
  );
}
