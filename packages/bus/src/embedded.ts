import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '@trove/db';
import type { Logger } from '@trove/platform';
import { holderIsGone, thisProcess, type LeaseHolder, type MemberIdentity } from './member';
import { insertEventRows } from './rows';
import { runPolling, Waker } from './waker';
import type { DeliveredEvent, EventBus, OutgoingEvent, SubscribeOptions, Subscription } from './port';

export const NOTIFY_CHANNEL = 'trove_bus';
/**
 * A group's lease, and how often its holder renews it while it holds it, busy or idle: a holder that stops renewing
 * (its process died, its host is gone) is replaced by another member within about the lease time. Three renewals fit
 * in one lease, so one late renewal (a busy pool, a paused event loop) does not lose it.
 */
export const LEASE_SECONDS = 6;
export const LEASE_RENEW_MS = 2_000;
const IDLE_POLL_MS = 500;
/**
 * A notified event can still be unreadable for a moment, while any older transaction (even a lease update elsewhere)
 * is running; for a short while after a notification, poll again soon instead of waiting a whole idle period.
 */
const RECHECK_MS = 25;
const RECHECK_WINDOW_MS = 1_000;
/** Offset rows of ephemeral groups are named with this prefix, so rows left by a crashed process can be found. */
const EPHEMERAL_PREFIX = 'ephemeral:';
/** An ephemeral group untouched for this long belongs to a process that is gone. */
const EPHEMERAL_ABANDONED = '1 hour';
/** How often a live ephemeral subscription marks its row, idle or not, so it is never taken for abandoned. */
const EPHEMERAL_KEEPALIVE_MS = 5 * 60_000;
/** Expired events are deleted this many at a time, so no delete holds its locks for long. */
const PRUNE_BATCH = 10_000;
/** The longest wait between two looks for expired events. */
const MAX_PRUNE_INTERVAL_MS = 10 * 60_000;

export interface EmbeddedEventBusOptions {
  /**
   * How long events stay in the log (EVENT_RETENTION_HOURS), like a Kafka topic's retention: older ones are deleted
   * whether or not every group has read them. Without it the log keeps everything.
   */
  retentionMs?: number;
  /** Who this process is, as written in the leases it takes; this process unless a test stands in for another. */
  member?: MemberIdentity;
}

interface EventRow {
  position: number;
  txid: string;
  topic: string;
  key: string;
  payload: string;
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
 * needs no transaction held open while the handler runs. The holder renews it while it runs, and names itself in it
 * (host, pid, incarnation): a process restarted on the same host takes over from its dead predecessor at once, and
 * members elsewhere when the lease runs out.
 */
export class EmbeddedEventBus implements EventBus {
  readonly kind = 'embedded' as const;
  private readonly subscriptions = new Set<EmbeddedSubscription>();
  private pruneTimer?: NodeJS.Timeout;
  private pruning?: Promise<unknown>;
  private readonly member: MemberIdentity;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly opts: EmbeddedEventBusOptions = {},
  ) {
    this.member = opts.member ?? thisProcess();
  }

  async publishInTransaction(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await appendEvents(trx, events);
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.database.db.transaction().execute((trx) => appendEvents(trx, events));
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const group = opts.ephemeral ? await this.createEphemeralGroup(opts.group, opts.topics, opts.since) : await this.joinGroup(opts.group);
    const sub = new EmbeddedSubscription(this.database, this.logger.child({ consumerGroup: group }), { ...opts, group }, this.member, () =>
      this.subscriptions.delete(sub),
    );
    this.subscriptions.add(sub);
    await sub.start();
    return sub;
  }

  private async joinGroup(group: string): Promise<string> {
    await this.database.db
      .insertInto('bus.consumer_offsets')
      .values({ grp: group })
      .onConflict((oc) => oc.column('grp').doNothing())
      .execute();
    return group;
  }

  /**
   * Every ephemeral subscription is its own group, so replicas that pass the same group name each see every event.
   * It starts at the end of what is readable now; an event committed behind a transaction still running may arrive
   * as well, which is the safe side of at least once. With `since`, it starts just before the topics' first event
   * published at or after that moment, in the order the group reads (transaction id, then position).
   */
  private async createEphemeralGroup(name: string, topics: string[], since?: Date): Promise<string> {
    const db = this.database.db;
    const group = `${EPHEMERAL_PREFIX}${name}:${randomUUID()}`;
    await sql`
      delete from bus.consumer_offsets
      where grp like ${`${EPHEMERAL_PREFIX}%`}
        and updated_at < now() - ${EPHEMERAL_ABANDONED}::interval
        and (lease_until is null or lease_until < now() - ${EPHEMERAL_ABANDONED}::interval)
    `.execute(db);
    if (since) {
      const { rows } = await sql<{ txid: string; position: number }>`
        select e.txid::text as txid, e.position from bus.events e
        where e.topic = any(${topics}::text[]) and e.published_at >= ${since.toISOString()}::timestamptz
        order by e.txid, e.position limit 1
      `.execute(db);
      const first = rows[0];
      if (first) {
        await sql`insert into bus.consumer_offsets (grp, txid, position) values (${group}, ${first.txid}::xid8, ${Number(first.position) - 1})`.execute(db);
        return group;
      }
    }
    await sql`
      insert into bus.consumer_offsets (grp, txid, position)
      select ${group}, coalesce(max(txid), '0'::xid8), coalesce(max(position), 0)
      from bus.events where txid < pg_snapshot_xmin(pg_current_snapshot())
    `.execute(db);
    return group;
  }

  async ping(): Promise<void> {
    await this.database.ping();
  }

  /** Counted as the group reads: after its committed (txid, position), in the topics' index. */
  async lag(group: string, topics: string[]): Promise<number> {
    if (topics.length === 0) return 0;
    const { rows } = await sql<{ lag: string }>`
      select count(*) as lag
      from bus.events e
      left join bus.consumer_offsets o on o.grp = ${group}
      where e.topic = any(${topics}::text[])
        and (o.grp is null or e.txid > o.txid or (e.txid = o.txid and e.position > o.position))
    `.execute(this.database.db);
    return Number(rows[0]?.lag ?? 0);
  }

  async start(): Promise<void> {
    const retention = this.opts.retentionMs;
    if (retention === undefined || this.pruneTimer) return;
    const every = Math.max(1_000, Math.min(retention / 10, MAX_PRUNE_INTERVAL_MS));
    this.pruneTimer = setInterval(() => {
      this.pruning ??= this.pruneExpired()
        .catch((err) => this.logger.warn({ err }, 'deleting expired events failed; trying again later'))
        .finally(() => (this.pruning = undefined));
    }, every);
    this.pruneTimer.unref();
  }

  /**
   * Deletes the events older than the retention period, oldest first; returns how many. Events are appended in
   * position order, so the expired ones are the first positions: each pass looks at the first PRUNE_BATCH events only.
   */
  async pruneExpired(): Promise<number> {
    const retention = this.opts.retentionMs;
    if (retention === undefined) return 0;
    const cutoff = new Date(Date.now() - retention).toISOString();
    let deleted = 0;
    for (;;) {
      const result = await sql`
        delete from bus.events e
        using (select position from bus.events order by position limit ${PRUNE_BATCH}) as first
        where e.position = first.position and e.published_at < ${cutoff}::timestamptz
      `.execute(this.database.db);
      const n = Number(result.numAffectedRows ?? 0);
      deleted += n;
      if (n < PRUNE_BATCH) break;
    }
    if (deleted > 0) this.logger.info({ deleted }, 'deleted expired events from the log');
    return deleted;
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    this.pruneTimer = undefined;
    await this.pruning;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }
}

async function appendEvents(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
  await insertEventRows(trx, 'bus.events', events);
  const topics = [...new Set(events.map((e) => e.topic))];
  for (const topic of topics) await sql`select pg_notify(${NOTIFY_CHANNEL}, ${topic})`.execute(trx);
}

/** A group's lease as a member finds it: who holds it, and whether this member may simply take it. */
interface GroupLease extends LeaseHolder {
  lease_owner: string | null;
  /** Nobody holds it, this member does, or it ran out. */
  lease_free: boolean;
}

class EmbeddedSubscription implements Subscription {
  private running = false;
  private loop?: Promise<void>;
  private readonly waker = new Waker();
  private lastNotifiedAt = 0;
  private lastKeptAliveAt = Date.now();
  private unlisten?: () => Promise<void>;
  private readonly owner = randomUUID();
  private readonly topics: Set<string>;
  private renewTimer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  /** Counts the claims, so a renewal that found the lease gone does not stop the renewals of a later claim. */
  private claims = 0;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly opts: SubscribeOptions,
    private readonly member: MemberIdentity,
    private readonly onStopped: () => void,
  ) {
    this.topics = new Set(opts.topics);
  }

  async start(): Promise<void> {
    this.running = true;
    this.unlisten = await this.database.listen(NOTIFY_CHANNEL, (topic) => {
      if (!this.topics.has(topic)) return;
      this.lastNotifiedAt = Date.now();
      this.waker.notify();
    });
    this.loop = this.run();
  }

  private run(): Promise<void> {
    return runPolling(this.waker, {
      running: () => this.running,
      pass: async () => {
        const handled = await this.pollOnce();
        if (this.opts.ephemeral) await this.keepAlive();
        if (handled) return 0;
        return Date.now() - this.lastNotifiedAt < RECHECK_WINDOW_MS ? RECHECK_MS : IDLE_POLL_MS;
      },
      onError: (err) => this.logger.error({ err }, 'event batch failed; it will be delivered again'),
    });
  }

  private async keepAlive(): Promise<void> {
    if (Date.now() - this.lastKeptAliveAt < EPHEMERAL_KEEPALIVE_MS) return;
    const touched = await this.database.db
      .updateTable('bus.consumer_offsets')
      .set({ updated_at: sql`now()` })
      .where('grp', '=', this.opts.group)
      .executeTakeFirst();
    this.lastKeptAliveAt = Date.now();
    if (Number(touched.numUpdatedRows) === 0) this.logger.warn('the ephemeral group position is gone; this subscription receives nothing more');
  }

  /**
   * Takes or renews the group's lease, and from then on renews it until it is lost or this member stops; returns the
   * committed position when this member holds it. `goneHolder` names a holder found to be a dead process: its lease is
   * taken only if that holder still has it, so of two members that found it dead one takes it.
   */
  private async claimLease(goneHolder?: string) {
    const m = this.member;
    const claimed = await this.database.db
      .updateTable('bus.consumer_offsets')
      .set({
        lease_owner: this.owner,
        lease_until: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
        lease_host: m.host,
        lease_pid_namespace: m.pidNamespace,
        lease_pid: m.pid,
        lease_incarnation: m.incarnation,
      })
      .where('grp', '=', this.opts.group)
      .where((eb) =>
        eb.or([
          eb('lease_owner', 'is', null),
          eb('lease_owner', 'in', goneHolder ? [this.owner, goneHolder] : [this.owner]),
          eb('lease_until', '<', sql<Date>`now()`),
        ]),
      )
      .returning(['txid', 'position'])
      .executeTakeFirst();
    if (claimed) {
      this.claims++;
      this.keepRenewing();
    }
    return claimed;
  }

  /**
   * Renews the lease every LEASE_RENEW_MS while this member holds it, idle or busy: a write every couple of seconds
   * per held group, where renewing on every poll would be one every half second, and letting an idle holder's lease
   * run out would let its replacement after a crash wait for the lease instead of the crash.
   * Ephemeral groups have one member, and no one to keep out.
   */
  private keepRenewing(): void {
    if (this.renewTimer || this.opts.ephemeral || !this.running) return;
    this.renewTimer = setInterval(() => {
      this.renewing ??= this.renewLease()
        .catch((err: unknown) => this.logger.warn({ err }, 'could not renew the consumer lease'))
        .finally(() => (this.renewing = undefined));
    }, LEASE_RENEW_MS);
    this.renewTimer.unref();
  }

  private stopRenewing(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  private async renewLease(): Promise<void> {
    const claims = this.claims;
    const renewed = await this.database.db
      .updateTable('bus.consumer_offsets')
      .set({ lease_until: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
      .where('grp', '=', this.opts.group)
      .where('lease_owner', '=', this.owner)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) > 0 || claims !== this.claims) return;
    this.stopRenewing();
    if (this.running) this.logger.warn('the consumer lease ran out and another member took the group');
  }

  /**
   * When there is something this member could handle now, who holds the group's lease: a read-only look first, so
   * idle members write nothing (no lease update, no transaction id) on every poll. Holders on this host are included
   * whatever their lease, for this member to judge whether they are gone.
   */
  private async findWork(): Promise<GroupLease | undefined> {
    const found = await sql<GroupLease>`
      select o.lease_owner, o.lease_host, o.lease_pid_namespace, o.lease_pid, o.lease_incarnation,
        (o.lease_owner is null or o.lease_owner = ${this.owner} or o.lease_until < now()) as lease_free
      from bus.consumer_offsets o
      where o.grp = ${this.opts.group}
        and (o.lease_owner is null or o.lease_owner = ${this.owner} or o.lease_until < now() or o.lease_host = ${this.member.host})
        and (
          exists (select 1 from bus.events e where ${this.topicIs()} and e.txid = o.txid and e.position > o.position)
          or exists (
            select 1 from bus.events e
            where ${this.topicIs()} and e.txid > o.txid and e.txid < pg_snapshot_xmin(pg_current_snapshot())
          )
        )
    `.execute(this.database.db);
    return found.rows[0];
  }

  /** Claims the lease when it is free, ours, run out, or held by a process that is gone; otherwise undefined. */
  private async claimIfMine(holder: GroupLease) {
    if (holder.lease_free) return this.claimLease();
    if (!holderIsGone(holder, this.member)) return undefined;
    const claimed = await this.claimLease(holder.lease_owner!);
    if (claimed) this.logger.info({ previousPid: holder.lease_pid }, 'took the consumer group over from a process that is gone');
    return claimed;
  }

  /**
   * The topic condition on `e`: with one topic an equality, so each read is an ordered walk of the
   * (topic, txid, position) index that stops at the batch size, however far the group lags.
   */
  private topicIs() {
    const topics = [...this.topics];
    return topics.length === 1 ? sql`e.topic = ${topics[0]}` : sql`e.topic = any(${topics}::text[])`;
  }

  /** Claims the group's lease, handles one batch, and commits its position. Returns whether it handled anything. */
  private async pollOnce(): Promise<boolean> {
    const db = this.database.db;
    const holder = await this.findWork();
    if (!holder) return false;
    const claimed = await this.claimIfMine(holder);
    if (!claimed) return false;

    // After the committed position: the rest of its own transaction's events, then those of transactions after it that
    // no running transaction precedes. Two plain ranges rather than one row comparison: each is a simple bounded walk
    // of the index. Sorted by the columns themselves (`e.`): the output column `txid` is text, and ordering by it put
    // 1000 before 999, so a batch could end past events it never delivered. Payload as text: drivers would parse json
    // themselves, and a payload that is a JSON string must not be parsed twice.
    const limit = this.opts.maxBatchSize ?? 500;
    const rows = await sql<EventRow>`
      select e.position, e.txid::text as txid, e.topic, e.key, e.payload::text as payload, e.published_at
      from (
        (select * from bus.events e
          where ${this.topicIs()} and e.txid = ${claimed.txid}::xid8 and e.position > ${claimed.position}::bigint
          order by e.position limit ${limit})
        union all
        (select * from bus.events e
          where ${this.topicIs()} and e.txid > ${claimed.txid}::xid8 and e.txid < pg_snapshot_xmin(pg_current_snapshot())
          order by e.txid, e.position limit ${limit})
      ) e
      order by e.txid, e.position
      limit ${limit}
    `.execute(db);
    if (rows.rows.length === 0) return false;

    const events: DeliveredEvent[] = rows.rows.map((r) => ({
      topic: r.topic,
      key: r.key,
      payload: JSON.parse(r.payload) as unknown,
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
    this.waker.interrupt();
    await this.loop;
    this.stopRenewing();
    await this.renewing;
    await this.unlisten?.();
    const release = this.opts.ephemeral
      ? this.database.db.deleteFrom('bus.consumer_offsets').where('grp', '=', this.opts.group)
      : this.database.db
          .updateTable('bus.consumer_offsets')
          .set({ lease_owner: null, lease_until: null, lease_host: null, lease_pid_namespace: null, lease_pid: null, lease_incarnation: null })
          .where('grp', '=', this.opts.group)
          .where('lease_owner', '=', this.owner);
    await release.execute().catch(() => undefined);
    this.onStopped();
  }
}
