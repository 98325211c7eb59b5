import type { ConsumerConfig, ConsumerRunConfig, EachBatchPayload, Kafka, KafkaMessage, ProducerBatch, ProducerConfig } from 'kafkajs';
import type { Database } from '@trove/db';
import { createLogger } from '@trove/platform';
import { sleep, waitUntil } from './__tests__/support';
import { KafkaEventBus, toDeliveredEvent } from './kafka';
import type { DeliveredEvent } from './port';

/**
 * The adapter's own logic against a stand-in for the kafkajs client: what it asks the producer, admin and consumers to
 * do. Its behaviour against a real cluster is the contract suite's job (bus.contract.test.ts, with KAFKA_BROKERS).
 */

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'kafka-test' });

class FakeConsumer {
  subscribed?: { topics: string[]; fromBeginning?: boolean };
  runConfig?: ConsumerRunConfig;
  connected = false;
  readonly events = { CRASH: 'consumer.crash' };
  readonly listeners = new Map<string, (event: unknown) => void>();

  constructor(readonly config: ConsumerConfig) {}

  on(event: string, listener: (event: unknown) => void) {
    this.listeners.set(event, listener);
  }
  async connect() {
    this.connected = true;
  }
  async disconnect() {
    this.connected = false;
  }
  async subscribe(s: { topics: string[]; fromBeginning?: boolean }) {
    this.subscribed = s;
  }
  async run(config: ConsumerRunConfig) {
    this.runConfig = config;
  }
}

class FakeKafka {
  producerConfig?: ProducerConfig;
  sent: ProducerBatch[] = [];
  /** Replaced by tests that hold the broker's acknowledgement back. */
  ack: () => Promise<void> = async () => undefined;
  producerConnected = false;
  topics = new Set<string>(['existing']);
  createTopicsCalls: Array<Array<{ topic: string; numPartitions?: number }>> = [];
  createTopicsError?: unknown;
  committedOffsets: Array<{ groupId: string; topic: string; partitions: Array<{ partition: number; offset: string }> }> = [];
  /** The timestamps fetchTopicOffsetsByTimestamp was asked for. */
  offsetsAskedAt: Array<number | undefined> = [];
  deletedGroups: string[] = [];
  consumers: FakeConsumer[] = [];

  producer(config: ProducerConfig) {
    this.producerConfig = config;
    return {
      connect: async () => void (this.producerConnected = true),
      disconnect: async () => void (this.producerConnected = false),
      sendBatch: async (batch: ProducerBatch) => {
        await this.ack();
        this.sent.push(batch);
        return [];
      },
    };
  }

  admin() {
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => [...this.topics],
      createTopics: async ({ topics }: { topics: Array<{ topic: string; numPartitions?: number }> }) => {
        this.createTopicsCalls.push(topics);
        if (this.createTopicsError) throw this.createTopicsError;
        for (const t of topics) this.topics.add(t.topic);
        return true;
      },
      fetchTopicOffsets: async () => [
        { partition: 0, offset: '7', high: '7', low: '0' },
        { partition: 1, offset: '3', high: '3', low: '0' },
      ],
      // As kafkajs answers it: each partition's first offset at or after the timestamp (the end when there is none).
      fetchTopicOffsetsByTimestamp: async (_topic: string, timestamp?: number) => {
        this.offsetsAskedAt.push(timestamp);
        return [
          { partition: 0, offset: '5' },
          { partition: 1, offset: '3' },
        ];
      },
      setOffsets: async (o: FakeKafka['committedOffsets'][number]) => void this.committedOffsets.push(o),
      deleteGroups: async (ids: string[]) => {
        this.deletedGroups.push(...ids);
        return [];
      },
    };
  }

  consumer(config: ConsumerConfig) {
    const c = new FakeConsumer(config);
    this.consumers.push(c);
    return c;
  }
}

/** Publishing directly and subscribing never touch the database; the relay is not started in these tests. */
const noDatabase = {} as Database;

function createBus(fake: FakeKafka, numPartitions?: number): KafkaEventBus {
  return new KafkaEventBus({
    database: noDatabase,
    logger,
    brokers: ['kafka:9092'],
    clientId: 'test',
    kafka: fake as unknown as Kafka,
    numPartitions,
  });
}

function message(offset: number, value: unknown, key = 'k'): KafkaMessage {
  return {
    key: Buffer.from(key),
    value: Buffer.from(JSON.stringify(value)),
    offset: String(offset),
    timestamp: String(Date.UTC(2026, 0, 2, 3, 4, 5)),
    attributes: 0,
    headers: {},
  } as KafkaMessage;
}

/** A fetched batch as kafkajs hands it to eachBatch, recording what the adapter does with it. */
function fetchedBatch(topic: string, partition: number, messages: KafkaMessage[]) {
  const calls: string[] = [];
  const resumed: number[] = [];
  const payload = {
    batch: { topic, partition, messages },
    resolveOffset: (offset: string) => void calls.push(`resolve ${offset}`),
    commitOffsetsIfNecessary: async (offsets?: { topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }> }) => {
      const p = offsets?.topics[0]?.partitions[0];
      calls.push(`commit ${p?.partition}@${p?.offset}`);
    },
    heartbeat: async () => undefined,
    pause: () => {
      calls.push('pause');
      return () => void resumed.push(Date.now());
    },
    isRunning: () => true,
    isStale: () => false,
    uncommittedOffsets: () => ({ topics: [] }),
  } as unknown as EachBatchPayload;
  return { payload, calls, resumed };
}

async function subscribeAndGetRun(
  fake: FakeKafka,
  handler: (events: DeliveredEvent[]) => Promise<void>,
  extra: { maxBatchSize?: number; ephemeral?: boolean; since?: Date } = {},
) {
  const bus = createBus(fake);
  const sub = await bus.subscribe({ group: 'search', topics: ['records.changed'], handler, ...extra });
  const consumer = fake.consumers.at(-1)!;
  return { bus, sub, consumer, eachBatch: consumer.runConfig!.eachBatch! };
}

describe('Kafka adapter: producing', () => {
  it('uses an idempotent producer that keeps one request in flight', () => {
    const fake = new FakeKafka();
    createBus(fake);

    expect(fake.producerConfig).toEqual(expect.objectContaining({ idempotent: true, maxInFlightRequests: 1 }));
  });

  it('publishes with the event key as message key and the JSON payload as value, waiting for every in-sync replica', async () => {
    const fake = new FakeKafka();
    const bus = createBus(fake);

    await bus.publish([
      { topic: 'auth.events', key: 'key-1', payload: { type: 'revoked' } },
      { topic: 'usage.events', key: 'tenant-1', payload: { searches: 1 } },
      { topic: 'auth.events', key: 'key-2', payload: { type: 'rotated' } },
    ]);

    expect(fake.sent).toHaveLength(1);
    expect(fake.sent[0]!.acks).toBe(-1);
    expect(fake.sent[0]!.topicMessages).toEqual([
      {
        topic: 'auth.events',
        messages: [
          { key: 'key-1', value: '{"type":"revoked"}' },
          { key: 'key-2', value: '{"type":"rotated"}' },
        ],
      },
      { topic: 'usage.events', messages: [{ key: 'tenant-1', value: '{"searches":1}' }] },
    ]);
  });

  it('resolves publish only after the broker acknowledged', async () => {
    const fake = new FakeKafka();
    let acknowledge!: () => void;
    fake.ack = () => new Promise<void>((resolve) => (acknowledge = resolve));
    const bus = createBus(fake);
    let resolved = false;

    const publishing = bus.publish([{ topic: 'auth.events', key: 'k', payload: {} }]).then(() => (resolved = true));
    await waitUntil('the send started', () => acknowledge !== undefined);
    await sleep(20);
    expect(resolved).toBe(false);
    acknowledge();
    await publishing;

    expect(resolved).toBe(true);
  });

  it('creates missing topics once, with the configured partitions, and leaves existing ones alone', async () => {
    const fake = new FakeKafka();
    const bus = createBus(fake, 6);

    await bus.publish([
      { topic: 'existing', key: 'k', payload: 1 },
      { topic: 'records.changed', key: 'k', payload: 2 },
    ]);
    await bus.publish([{ topic: 'records.changed', key: 'k', payload: 3 }]);

    expect(fake.createTopicsCalls).toEqual([[{ topic: 'records.changed', numPartitions: 6 }]]);
  });

  it('accepts a topic that another replica created at the same moment', async () => {
    const fake = new FakeKafka();
    fake.createTopicsError = Object.assign(new Error('Topic already exists'), { type: 'TOPIC_ALREADY_EXISTS' });
    const bus = createBus(fake);

    await expect(bus.publish([{ topic: 'records.changed', key: 'k', payload: 1 }])).resolves.toBeUndefined();
  });

  it('reports a topic that cannot be created', async () => {
    const fake = new FakeKafka();
    fake.createTopicsError = Object.assign(new Error('Not authorized'), { type: 'TOPIC_AUTHORIZATION_FAILED' });
    const bus = createBus(fake);

    await expect(bus.publish([{ topic: 'records.changed', key: 'k', payload: 1 }])).rejects.toThrow('Not authorized');
  });
});

describe('Kafka adapter: consuming', () => {
  it('joins the named group from the beginning, committing offsets itself', async () => {
    const fake = new FakeKafka();
    const { consumer } = await subscribeAndGetRun(fake, async () => undefined);

    expect(consumer.config.groupId).toBe('search');
    expect(consumer.subscribed).toEqual({ topics: ['records.changed'], fromBeginning: true });
    expect(consumer.runConfig).toEqual(expect.objectContaining({ autoCommit: false, eachBatchAutoResolve: false }));
    expect(fake.createTopicsCalls).toEqual([[{ topic: 'records.changed', numPartitions: 3 }]]);
  });

  it('commits a batch only after its handler resolved, at the offset after its last message', async () => {
    const fake = new FakeKafka();
    let finish!: () => void;
    const handled: DeliveredEvent[][] = [];
    const { eachBatch } = await subscribeAndGetRun(fake, (events) => {
      handled.push(events);
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const { payload, calls } = fetchedBatch('records.changed', 2, [message(10, { seq: 1 }), message(11, { seq: 2 })]);

    const running = eachBatch(payload);
    await waitUntil('the handler got the batch', () => handled.length === 1);
    expect(calls).toEqual([]);
    finish();
    await running;

    expect(calls).toEqual(['resolve 11', 'commit 2@12']);
    expect(handled[0]!.map((e) => e.payload)).toEqual([{ seq: 1 }, { seq: 2 }]);
  });

  it('hands a large fetched batch over in chunks of maxBatchSize, committing after each', async () => {
    const fake = new FakeKafka();
    const sizes: number[] = [];
    const { eachBatch } = await subscribeAndGetRun(fake, async (events) => void sizes.push(events.length), { maxBatchSize: 2 });
    const { payload, calls } = fetchedBatch('records.changed', 0, [0, 1, 2, 3, 4].map((o) => message(o, { o })));

    await eachBatch(payload);

    expect(sizes).toEqual([2, 2, 1]);
    expect(calls).toEqual(['resolve 1', 'commit 0@2', 'resolve 3', 'commit 0@4', 'resolve 4', 'commit 0@5']);
  });

  it('leaves a failed batch uncommitted and pauses its partition for a back-off, so it is fetched again', async () => {
    const fake = new FakeKafka();
    const { eachBatch } = await subscribeAndGetRun(fake, async () => {
      throw new Error('index unavailable');
    });
    const { payload, calls, resumed } = fetchedBatch('records.changed', 1, [message(5, {})]);
    const failedAt = Date.now();

    await expect(eachBatch(payload)).resolves.toBeUndefined();

    expect(calls).toEqual(['pause']);
    await waitUntil('the partition resumed', () => resumed.length === 1, 2_000);
    expect(resumed[0]! - failedAt).toBeGreaterThanOrEqual(90);
  });

  it('commits the chunks handled before a failing one, and only those', async () => {
    const fake = new FakeKafka();
    const { eachBatch } = await subscribeAndGetRun(
      fake,
      async (events) => {
        if (events.some((e) => (e.payload as { o: number }).o === 2)) throw new Error('bad record');
      },
      { maxBatchSize: 2 },
    );
    const { payload, calls } = fetchedBatch('records.changed', 0, [0, 1, 2, 3].map((o) => message(o, { o })));

    await eachBatch(payload);

    expect(calls).toEqual(['resolve 1', 'commit 0@2', 'pause']);
  });

  it('gives an ephemeral subscription a group of its own that starts at the end of each partition, and deletes it on stop', async () => {
    const fake = new FakeKafka();
    const { sub, consumer } = await subscribeAndGetRun(fake, async () => undefined, { ephemeral: true });

    expect(consumer.config.groupId).toMatch(/^search\.[0-9a-f-]{36}$/);
    expect(consumer.subscribed).toEqual({ topics: ['records.changed'], fromBeginning: false });
    expect(fake.committedOffsets).toEqual([
      {
        groupId: consumer.config.groupId,
        topic: 'records.changed',
        partitions: [
          { partition: 0, offset: '7' },
          { partition: 1, offset: '3' },
        ],
      },
    ]);
    await sub.stop();
    expect(consumer.connected).toBe(false);
    expect(fake.deletedGroups).toEqual([consumer.config.groupId]);
  });

  it('starts an ephemeral subscription with `since` at the offsets of that moment', async () => {
    const fake = new FakeKafka();
    const since = new Date('2026-11-27T01:00:00.000Z');
    const { consumer } = await subscribeAndGetRun(fake, async () => undefined, { ephemeral: true, since });

    expect(fake.offsetsAskedAt).toEqual([since.getTime()]);
    expect(fake.committedOffsets).toEqual([
      {
        groupId: consumer.config.groupId,
        topic: 'records.changed',
        partitions: [
          { partition: 0, offset: '5' },
          { partition: 1, offset: '3' },
        ],
      },
    ]);
  });

  it('stops every consumer and disconnects the producer on close', async () => {
    const fake = new FakeKafka();
    const bus = createBus(fake);
    await bus.subscribe({ group: 'a', topics: ['existing'], handler: async () => undefined });
    await bus.subscribe({ group: 'b', topics: ['existing'], handler: async () => undefined });
    await bus.publish([{ topic: 'existing', key: 'k', payload: 1 }]);

    await bus.close();

    expect(fake.consumers.map((c) => c.connected)).toEqual([false, false]);
    expect(fake.producerConnected).toBe(false);
  });
});

describe('Kafka adapter: decoding messages', () => {
  it('parses the JSON value and keeps key, offset and timestamp', () => {
    const event = toDeliveredEvent('records.changed', 3, message(42, { id: 'r1', version: 2 }, 'tenant:r1'));

    expect(event).toEqual({
      topic: 'records.changed',
      key: 'tenant:r1',
      payload: { id: 'r1', version: 2 },
      offset: 'records.changed:3:42',
      publishedAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it('hands a value that is not JSON over as text, for the consumer schema to reject', () => {
    const raw = { ...message(1, null), value: Buffer.from('not json {') } as KafkaMessage;

    expect(toDeliveredEvent('t', 0, raw).payload).toBe('not json {');
  });

  it('turns a message without a value into a null payload', () => {
    const tombstone = { ...message(1, null), value: null } as KafkaMessage;

    expect(toDeliveredEvent('t', 0, tombstone).payload).toBeNull();
  });
});
