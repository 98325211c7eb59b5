import { sql, type Transaction } from 'kysely';
import type { Database } from '@trove/db';
import { insertEventRows } from './rows';
import { runPolling, Waker } from './waker';
import type { Logger } from '@trove/platform';
import type { OutgoingEvent } from './port';

/** NOTIFY channel that wakes the outbox relay when a transaction wrote outbox rows. */
export const OUTBOX_CHANNEL = 'trove_bus_outbox';
/** Only one relay sends at a time, so events of one key reach the broker in the order they were written. */
const RELAY_LOCK = 'trove.bus.outbox-relay';

/** An outbox row on its way to the broker; `payload` is the JSON text stored in the row. */
export interface OutboxMessage {
  id: number;
  topic: string;
  key: string;
  payload: string;
  createdAt: Date;
}

/** Sends messages and resolves only once the broker acknowledged every one of them. */
export type OutboxSender = (messages: OutboxMessage[]) => Promise<void>;

/** Writes events into bus.outbox inside the caller's transaction; they leave only if it commits. */
export async function writeOutbox(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
  if (events.length === 0) return;
  await insertEventRows(trx, 'bus.outbox', events);
  await sql`select pg_notify(${OUTBOX_CHANNEL}, '')`.execute(trx);
}

export interface OutboxRelayOptions {
  database: Database;
  logger: Logger;
  send: OutboxSender;
  batchSize?: number;
  /** How often the relay looks for rows when no notification woke it. */
  pollIntervalMs?: number;
}

/**
 * Moves outbox rows to the broker, at least once. Each pass runs in one transaction: it locks a batch of rows in id
 * order (`for update skip locked`), sends them, deletes them once the broker acknowledged, and commits. A crash or a
 * failed send rolls the transaction back and the rows are sent again later. Replicas may all run a relay: a
 * transaction-scoped advisory lock lets one of them send at a time (the others stand by), because two relays
 * sending neighbouring batches concurrently could reorder events of the same key.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  /** Ends an idle wait when rows were written; unset during a back-off, which notifications must not cut short. */
  private readonly waker = new Waker();
  private unlisten?: () => Promise<void>;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.batchSize = opts.batchSize ?? 500;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1_000;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unlisten = await this.opts.database.listen(OUTBOX_CHANNEL, () => this.waker.notify());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.waker.interrupt();
    await this.loop;
    await this.unlisten?.();
  }

  /** Relays one batch; returns how many rows it sent (0 when there was nothing, or another relay holds the lock). */
  async relayOnce(): Promise<number> {
    return this.opts.database.db.transaction().execute(async (trx) => {
      const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${RELAY_LOCK})) as locked`.execute(trx);
      if (!lock.rows[0]?.locked) return 0;
      const rows = await sql<{ id: number; topic: string; key: string; payload: string; created_at: Date | string }>`
        select id, topic, key, payload::text as payload, created_at
        from bus.outbox
        order by id
        limit ${this.batchSize}
        for update skip locked
      `.execute(trx);
      if (rows.rows.length === 0) return 0;
      const messages = rows.rows.map((r) => ({
        id: Number(r.id),
        topic: r.topic,
        key: r.key,
        payload: r.payload,
        createdAt: new Date(r.created_at),
      }));
      await this.opts.send(messages);
      await trx
        .deleteFrom('bus.outbox')
        .where('id', 'in', messages.map((m) => m.id))
        .execute();
      return messages.length;
    });
  }

  private run(): Promise<void> {
    return runPolling(this.waker, {
      running: () => this.running,
      pass: async () => ((await this.relayOnce()) < this.batchSize ? this.pollIntervalMs : 0),
      onError: (err) => this.opts.logger.error({ err }, 'outbox relay failed; the rows stay in the outbox and are sent again'),
    });
  }

}
