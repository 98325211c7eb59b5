import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';
import type { Database } from '@trove/db';
import type { Logger } from '@trove/platform';
import { OutboxRelay, writeOutbox, type OutboxMessage } from './outbox';
import type { DeliveredEvent, EventBus, OutgoingEvent, SubscribeOptions, Subscription } from './port';

export interface KafkaEventBusOptions {
  /** The database holding bus.outbox. */
  database: Database;
  logger: Logger;
  brokers: string[];
  clientId: string;
  /** Partitions of the topics this bus creates when they are missing (default 3); existing topics are left alone. */
  numPartitions?: number;
  /** A client configured elsewhere (TLS, SASL, tests); built from brokers and clientId when omitted. */
  kafka?: Kafka;
  /** Outbox rows per relay pass (default 500). */
  relayBatchSize?: number;
  /** How often the relay looks at the outbox when no notification woke it (default 1s). */
  relayPollIntervalMs?: number;
}

const DEFAULT_PARTITIONS = 3;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 30_000;

/**
 * The scaled adapter: Kafka through kafkajs.
 *
 * Writes go through the transactional outbox: publishInTransaction stores rows in bus.outbox with the caller's
 * transaction, and a relay (started by start()) sends them with an idempotent producer and deletes them once Kafka
 * acknowledged. Consumers commit a batch's offsets only after its handler resolved; a rejected batch is paused, backed
 * off and fetched again from the same offset.
 */
export class KafkaEventBus implements EventBus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly admin: Admin;
  private readonly relay: OutboxRelay;
  private readonly logger: Logger;
  private readonly knownTopics = new Set<string>();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private producerConnected?: Promise<void>;
  private adminConnected?: Promise<void>;

  constructor(private readonly opts: KafkaEventBusOptions) {
    this.logger = opts.logger.child({ bus: 'kafka' });
    this.kafka =
      opts.kafka ??
      new Kafka({ clientId: opts.clientId, brokers: opts.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogCreator(this.logger) });
    this.producer = this.kafka.producer({
      idempotent: true,
      // One request in flight keeps a key's messages in order when kafkajs retries a send.
      maxInFlightRequests: 1,
      // Bounded, unlike kafkajs's default for idempotent producers, so a send to an unreachable cluster fails: the
      // relay then keeps the rows and tries again, and publish() reports the failure to its caller.
      retry: { retries: 8 },
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.admin = this.kafka.admin();
    this.relay = new OutboxRelay({
      database: opts.database,
      logger: this.logger.child({ component: 'outbox-relay' }),
      send: (messages) => this.sendOutbox(messages),
      batchSize: opts.relayBatchSize,
      pollIntervalMs: opts.relayPollIntervalMs,
    });
  }

  async publishInTransaction(trx: Transaction<any>, events: OutgoingEvent[]): Promise<void> {
    await writeOutbox(trx, events);
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.send(events.map((e) => ({ topic: e.topic, message: { key: e.key, value: JSON.stringify(e.payload) } })));
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    await this.ensureTopics(opts.topics);
    const groupId = opts.ephemeral ? `${opts.group}.${randomUUID()}` : opts.group;
    if (opts.ephemeral) await this.startAtEnd(groupId, opts.topics, opts.since);
    const sub = new KafkaSubscription({
      consumer: this.kafka.consumer({ groupId, allowAutoTopicCreation: false }),
      logger: this.logger.child({ consumerGroup: groupId }),
      opts,
      onStopped: async () => {
        this.subscriptions.delete(sub);
        // An ephemeral group is never joined again; leaving it behind would only clutter the cluster.
        if (opts.ephemeral) await this.deleteGroup(groupId);
      },
    });
    this.subscriptions.add(sub);
    try {
      await sub.start();
    } catch (err) {
      this.subscriptions.delete(sub);
      throw err;
    }
    return sub;
  }

  async start(): Promise<void> {
    await this.relay.start();
  }

  async ping(): Promise<void> {
    await this.connectAdmin();
    await this.admin.describeCluster();
  }

  /** Per partition, the end offset less the group's committed one (or less the partition's start, when it has none). */
  async lag(group: string, topics: string[]): Promise<number> {
    if (topics.length === 0) return 0;
    await this.ensureTopics(topics);
    const committed = await this.admin.fetchOffsets({ groupId: group, topics });
    let lag = 0;
    for (const topic of topics) {
      const mine = committed.find((t) => t.topic === topic)?.partitions ?? [];
      for (const p of await this.admin.fetchTopicOffsets(topic)) {
        const at = Number(mine.find((m) => m.partition === p.partition)?.offset ?? -1);
        lag += Math.max(0, Number(p.high) - (at >= 0 ? at : Number(p.low)));
      }
    }
    return lag;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.relay.stop();
    if (this.producerConnected) await this.producer.disconnect().catch(() => undefined);
    if (this.adminConnected) await this.admin.disconnect().catch(() => undefined);
    this.producerConnected = this.adminConnected = undefined;
  }

  private sendOutbox(messages: OutboxMessage[]): Promise<void> {
    return this.send(
      messages.map((m) => ({
        topic: m.topic,
        message: { key: m.key, value: m.payload, timestamp: String(m.createdAt.getTime()) },
      })),
    );
  }

  /** Sends in the given order and resolves once every partition leader and its in-sync replicas acknowledged. */
  private async send(items: Array<{ topic: string; message: Message }>): Promise<void> {
    await this.ensureTopics([...new Set(items.map((i) => i.topic))]);
    await this.connectProducer();
    const byTopic = new Map<string, Message[]>();
    for (const { topic, message } of items) {
      const list = byTopic.get(topic) ?? [];
      list.push(message);
      byTopic.set(topic, list);
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  /** Creates missing topics once per process; a topic another replica created meanwhile is fine. */
  private async ensureTopics(topics: string[]): Promise<void> {
    const unknown = topics.filter((t) => !this.knownTopics.has(t));
    if (unknown.length === 0) return;
    await this.connectAdmin();
    const existing = new Set(await this.admin.listTopics());
    const missing = unknown.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      try {
        await this.admin.createTopics({
          topics: missing.map((topic) => ({ topic, numPartitions: this.opts.numPartitions ?? DEFAULT_PARTITIONS })),
          waitForLeaders: true,
        });
      } catch (err) {
        if (!isTopicAlreadyExists(err)) throw err;
      }
    }
    for (const t of unknown) this.knownTopics.add(t);
  }

  /**
   * Commits the topics' current end offsets for a new group, so it sees exactly what is published from now on. A new
   * group's own default ("latest") would only be looked up at its first fetch, missing what is published in between.
   * kafkajs joins the group briefly to commit, so an ephemeral subscribe takes a few seconds. With `since`, each
   * partition starts at its first message of that moment or later (Kafka's offsets by timestamp; the end when none).
   */
  private async startAtEnd(groupId: string, topics: string[], since?: Date): Promise<void> {
    await this.connectAdmin();
    for (const topic of topics) {
      const partitions = since
        ? (await this.admin.fetchTopicOffsetsByTimestamp(topic, since.getTime())).map((p) => ({ partition: p.partition, offset: p.offset }))
        : (await this.admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, offset: p.high }));
      await this.admin.setOffsets({ groupId, topic, partitions });
    }
  }

  private async deleteGroup(groupId: string): Promise<void> {
    try {
      await this.connectAdmin();
      await this.admin.deleteGroups([groupId]);
    } catch (err) {
      this.logger.warn({ err, groupId }, 'could not delete an ephemeral consumer group');
    }
  }

  private connectProducer(): Promise<void> {
    this.producerConnected ??= this.producer.connect().catch((err: unknown) => {
      this.producerConnected = undefined;
      throw err;
    });
    return this.producerConnected;
  }

  private connectAdmin(): Promise<void> {
    this.adminConnected ??= this.admin.connect().catch((err: unknown) => {
      this.adminConnected = undefined;
      throw err;
    });
    return this.adminConnected;
  }
}

interface KafkaSubscriptionOptions {
  consumer: Consumer;
  logger: Logger;
  opts: SubscribeOptions;
  onStopped: () => Promise<void>;
}

/** One kafkajs consumer in a group, handing batches to the handler and committing after each handled batch. */
export class KafkaSubscription implements Subscription {
  private readonly consumer: Consumer;
  private readonly logger: Logger;
  private readonly opts: SubscribeOptions;
  /** Back-off per topic-partition, doubled on each failure of that partition's batch and reset by a success. */
  private readonly backoff = new Map<string, number>();
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  private stopping?: Promise<void>;

  constructor(private readonly params: KafkaSubscriptionOptions) {
    this.consumer = params.consumer;
    this.logger = params.logger;
    this.opts = params.opts;
  }

  async start(): Promise<void> {
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      const message = payload.restart ? 'consumer crashed; kafkajs restarts it' : 'consumer crashed and stopped';
      this.logger.error({ err: payload.error }, message);
    });
    await this.consumer.connect();
    try {
      await this.consumer.subscribe({ topics: this.opts.topics, fromBeginning: !this.opts.ephemeral });
      // run() resolves once the consumer joined the group and got its partitions.
      await this.consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.handleBatch(payload),
      });
    } catch (err) {
      await this.consumer.disconnect().catch(() => undefined);
      throw err;
    }
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const timer of this.resumeTimers) clearTimeout(timer);
      this.resumeTimers.clear();
      // disconnect() waits for the batch in hand, which commits before it returns.
      await this.consumer.disconnect();
      await this.params.onStopped();
    })();
    return this.stopping;
  }

  /**
   * Hands the batch to the handler in chunks of maxBatchSize and commits after each chunk. A chunk whose handler
   * rejects is left unresolved, so the partition is fetched again from that chunk once its back-off ends.
   */
  async handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const size = this.opts.maxBatchSize ?? 500;
    const partitionKey = `${batch.topic}:${batch.partition}`;
    for (let i = 0; i < batch.messages.length; i += size) {
      if (!payload.isRunning() || payload.isStale()) return;
      const chunk = batch.messages.slice(i, i + size);
      try {
        await this.opts.handler(chunk.map((m) => toDeliveredEvent(batch.topic, batch.partition, m)));
      } catch (err) {
        this.retryLater(partitionKey, payload, err);
        return;
      }
      const last = chunk[chunk.length - 1]!.offset;
      payload.resolveOffset(last);
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last) + 1n).toString() }] }],
      });
      this.backoff.delete(partitionKey);
      await payload.heartbeat();
    }
  }

  private retryLater(partitionKey: string, payload: EachBatchPayload, err: unknown): void {
    const delay = this.backoff.get(partitionKey) ?? FIRST_BACKOFF_MS;
    this.backoff.set(partitionKey, Math.min(delay * 2, MAX_BACKOFF_MS));
    this.logger.error({ err, partition: partitionKey, retryInMs: delay }, 'event handler failed; the batch will be delivered again');
    // Pausing (rather than throwing back to kafkajs) keeps the consumer in its group and leaves other partitions flowing.
    const resume = payload.pause();
    const timer = setTimeout(() => {
      this.resumeTimers.delete(timer);
      resume();
    }, delay);
    this.resumeTimers.add(timer);
  }
}

/** Decodes a Kafka message; a value that is not JSON is handed over as text for the consumer's schema to reject. */
export function toDeliveredEvent(topic: string, partition: number, message: KafkaMessage): DeliveredEvent {
  const text = message.value?.toString('utf8');
  let payload: unknown = null;
  if (text !== undefined) {
    try {
      payload = JSON.parse(text);
    } catch {
      payload = text;
    }
  }
  const timestamp = Number(message.timestamp);
  return {
    topic,
    key: message.key?.toString('utf8') ?? '',
    payload,
    offset: `${topic}:${partition}:${message.offset}`,
    publishedAt: new Date(Number.isFinite(timestamp) ? timestamp : Date.now()).toISOString(),
  };
}

function isTopicAlreadyExists(err: unknown): boolean {
  const e = err as { type?: string; errors?: Array<{ type?: string }> };
  if (e?.type === 'TOPIC_ALREADY_EXISTS') return true;
  return Array.isArray(e?.errors) && e.errors.length > 0 && e.errors.every((x) => x?.type === 'TOPIC_ALREADY_EXISTS');
}

/** Routes kafkajs's own log lines into the service logger. */
function kafkaLogCreator(logger: Logger) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
      const fields = { ...extra, kafkajs: namespace };
      if (level === logLevel.ERROR) logger.error(fields, message);
      else if (level === logLevel.WARN) logger.warn(fields, message);
      else if (level === logLevel.INFO) logger.info(fields, message);
      else logger.debug(fields, message);
    };
}
