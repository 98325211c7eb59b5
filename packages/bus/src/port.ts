import type { Transaction } from 'kysely';

export interface OutgoingEvent {
  topic: string;
  /** Partition key: events with the same key are delivered in the order they were written. */
  key: string;
  payload: unknown;
}

export interface DeliveredEvent {
  topic: string;
  key: string;
  /** Arrives untyped; the consumer parses it with the contract's zod schema. */
  payload: unknown;
  /** Adapter-specific position, for logs only. */
  offset: string;
  publishedAt: string;
}

/**
 * Handles one batch. Resolving commits the batch's offsets; rejecting leaves them uncommitted and the batch is
 * delivered again after a back-off (at least once), so handlers must be idempotent.
 */
export type BatchHandler = (events: DeliveredEvent[]) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: each event is handled by one member of each group. */
  group: string;
  topics: string[];
  handler: BatchHandler;
  maxBatchSize?: number;
  /**
   * A group of one member that sees only events published after it subscribed, and whose position is forgotten
   * when it stops: for per-instance state such as a gateway's key cache, where every replica needs every event.
   */
  ephemeral?: boolean;
  /**
   * With `ephemeral`: starts at the topics' first event published at or after this moment instead of at the end, for
   * per-instance state that recent events can still change (a gateway's plan changes, which matter while a token
   * signed before them is valid). Events published before it are not delivered; the log's retention bounds how far
   * back this reaches.
   */
  since?: Date;
}

export interface Subscription {
  /** Stops fetching, waits for the batch in hand to finish and commit. */
  stop(): Promise<void>;
}

/**
 * The event bus port. Two adapters: the embedded PostgreSQL log and Kafka. Business code never asks which it has.
 */
export interface EventBus {
  readonly kind: 'embedded' | 'kafka';
  /**
   * Writes events inside the caller's transaction (the transactional outbox): consumers see them if and only if the
   * transaction commits.
   */
  publishInTransaction(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void>;
  /** Publishes events outside any transaction; returns only after they are durably stored. */
  publish(events: OutgoingEvent[]): Promise<void>;
  /** Starts consuming from the group's last committed position (or the beginning for a new group). */
  subscribe(opts: SubscribeOptions): Promise<Subscription>;
  /** Starts background work the adapter needs (the outbox relay in Kafka mode). */
  start(): Promise<void>;
  /** Resolves once the bus's store answers (the log's database, or the Kafka cluster); rejects when it does not. */
  ping(): Promise<void>;
  /**
   * How many events on `topics` the group has yet to commit: published (and readable) after its committed position.
   * A group that never subscribed has the whole retained log ahead of it.
   */
  lag(group: string, topics: string[]): Promise<number>;
  /** Stops every subscription and the relay. */
  close(): Promise<void>;
}
