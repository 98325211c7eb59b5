import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '@trove/db';
import type { Logger } from '@trove/platform';
import type { DeliveredEvent, EventBus, OutgoingEvent, SubscribeOptions, Subscription } from './port';

export const NOTIFY_CHANNEL = 'trove_bus';
const LEASE_SECONDS = 30;
const IDLE_POLL_MS = 500;
const MAX_BACKOFF_MS = 30_000;

interface EventRow {
  position: number;
  txid: string;
  topic: string;
  key: string;
  payload: unknown;
  published_at: Date | string;
}

/**
 * The embedded event log: an append-only table in PostgreSQL (or PGlite).
 *
 * Ordering is by (transaction id, position), and a consumer only reads rows whose transaction id is below the
 * oldest transaction still running. A row can therefore never commit "behind" a consumer's committed position,
 * which a plain sequence would allow when two writers commit out of order.
 *
 * A consumer group holds a lease on its offset row, so among replicas one member consumes at a time; the lease
 * needs no transaction held open while the handler runs.
 */
export class EmbeddedEventBus implements EventBus {
  readonly kind = 'embedded' as const;
  private readonly subscriptions = new Set<EmbeddedSubscription>();

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {}

  async publishInTransaction(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await appendEvents(trx, events);
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.database.db.transaction().execute((trx) => appendEvents(trx, events));
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (opts.ephemeral) {
      // Start at the current end of the log: everything already committed, nothing still in flight.
      await sql`
        insert into bus.consumer_offsets (grp, txid, position)
        select ${opts.group}, coalesce(max(txid), '0'::xid8), coalesce(max(position), 0)
        from bus.events where txid < pg_snapshot_xmin(pg_current_snapshot())
        on conflict (grp) do nothing
      `.execute(this.database.db);
    } else {
      await this.database.db
        .insertInto('bus.consumer_offsets')
        .values({ grp: opts.group })
        .onConflict((oc) => oc.column('grp').doNothing())
        .execute();
    }
    const sub = new EmbeddedSubscription(this.database, this.logger.child({ consumerGroup: opts.group }), opts, () =>
      this.subscriptions.delete(sub),
    );
    this.subscriptions.add(sub);
    await sub.start();
    return sub;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }
}

async function appendEvents(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
  // Chunked so a 10,000-record write stays within the parameter limit of one statement.
  for (let i = 0; i < events.length; i += 1000) {
    const chunk = events.slice(i, i + 1000);
    await trx
      .insertInto('bus.events')
      .values(chunk.map((e) => ({ topic: e.topic, key: e.key, payload: JSON.stringify(e.payload) })))
      .execute();
  }
  const topics = [...new Set(events.map((e) => e.topic))];
  for (const topic of topics) await sql`select pg_notify(${NOTIFY_CHANNEL}, ${topic})`.execute(trx);
}

class EmbeddedSubscription implements Subscription {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private unlisten?: () => Promise<void>;
  private readonly owner = randomUUID();
  private readonly topics: Set<string>;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly opts: SubscribeOptions,
    private readonly onStopped: () => void,
  ) {
    this.topics = new Set(opts.topics);
  }

  async start(): Promise<void> {
    this.running = true;
    this.unlisten = await this.database.listen(NOTIFY_CHANNEL, (topic) => {
      if (this.topics.has(topic)) this.wake?.();
    });
    this.loop = this.run();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        const handled = await this.pollOnce();
        backoff = 100;
        if (!handled) await this.sleep(IDLE_POLL_MS);
      } catch (err) {
        if (!this.running) break;
        this.logger.error({ err }, 'event handler failed; the batch will be delivered again');
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Claims the group's lease, handles one batch, and commits its position. Returns whether it handled anything. */
  private async pollOnce(): Promise<boolean> {
    const db = this.database.db;
    const claimed = await db
      .updateTable('bus.consumer_offsets')
      .set({ lease_owner: this.owner, lease_until: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
      .where('grp', '=', this.opts.group)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', this.owner), eb('lease_until', '<', sql<Date>`now()`)]))
      .returning(['txid', 'position'])
      .executeTakeFirst();
    if (!claimed) return false;

    const rows = await sql<EventRow>`
      select position, txid::text as txid, topic, key, payload, published_at
      from bus.events
      where topic = any(${[...this.topics]}::text[])
        and (txid, position) > (${claimed.txid}::xid8, ${claimed.position}::bigint)
        and txid < pg_snapshot_xmin(pg_current_snapshot())
      order by txid, position
      limit ${this.opts.maxBatchSize ?? 500}
    `.execute(db);
    if (rows.rows.length === 0) return false;

    const events: DeliveredEvent[] = rows.rows.map((r) => ({
      topic: r.topic,
      key: r.key,
      payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
      offset: `${r.txid}:${r.position}`,
      publishedAt: new Date(r.published_at).toISOString(),
    }));
    await this.opts.handler(events);
    const last = rows.rows[rows.rows.length - 1]!;
    const committed = await db
      .updateTable('bus.consumer_offsets')
      .set({ txid: sql`${last.txid}::xid8`, position: last.position, updated_at: sql`now()` })
      .where('grp', '=', this.opts.group)
      .where('lease_owner', '=', this.owner)
      .executeTakeFirst();
    if (Number(committed.numUpdatedRows) === 0) this.logger.warn('lease lost before commit; the batch will be delivered again');
    return true;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.unlisten?.();
    const release = this.opts.ephemeral
      ? this.database.db.deleteFrom('bus.consumer_offsets').where('grp', '=', this.opts.group)
      : this.database.db
          .updateTable('bus.consumer_offsets')
          .set({ lease_owner: null, lease_until: null })
          .where('grp', '=', this.opts.group)
          .where('lease_owner', '=', this.owner);
    await release.execute().catch(() => undefined);
    this.onStopped();
  }
}
