import { spawnSync } from 'node:child_process';
import { sql } from 'kysely';
import { openDatabase, type Database } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase } from '@trove/testing';
import { idOf, makeEvents, Recorder, sleep, uniqueTopic, waitUntil } from './__tests__/support';
import { createEventBus } from './factory';
import type { EventBus, OutgoingEvent, SubscribeOptions, Subscription } from './port';

/**
 * One contract, every adapter: the embedded log on PostgreSQL and on PGlite, and Kafka whenever KAFKA_BROKERS names a
 * reachable cluster. Each test uses its own topics and groups, so a shared cluster or database keeps them apart.
 */

interface Harness {
  bus: EventBus;
  database: Database;
  close(): Promise<void>;
}

interface Adapter {
  name: string;
  open(): Promise<Harness>;
  /** How long to wait for a delivery; Kafka needs longer for group joins and rebalances. */
  patienceMs: number;
  /** Whether transactions can be held open side by side (not on PGlite's single connection). */
  concurrentTransactions: boolean;
}

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'bus-contract' });

async function onTestServer(kafkaBrokers?: string[]): Promise<Harness> {
  const testDb = await createTestDatabase();
  const bus = await createEventBus({ database: testDb.database, logger, kafkaBrokers, kafkaClientId: 'trove-contract' });
  await bus.start();
  return {
    bus,
    database: testDb.database,
    async close() {
      await bus.close();
      await testDb.drop();
    },
  };
}

async function onPGlite(): Promise<Harness> {
  const database = await openDatabase({ inMemory: true });
  const bus = await createEventBus({ database, logger });
  await bus.start();
  return {
    bus,
    database,
    async close() {
      await bus.close();
      await database.close();
    },
  };
}

const kafkaBrokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);

/** Describe blocks are declared synchronously, so the reachability probe runs in a child process with a short timeout. */
function kafkaReachable(brokers: string[]): boolean {
  if (brokers.length === 0) return false;
  const probe = `
    const net = require('node:net');
    const brokers = ${JSON.stringify(brokers)};
    let pending = brokers.length;
    for (const broker of brokers) {
      const i = broker.lastIndexOf(':');
      const socket = net.connect({ host: broker.slice(0, i), port: Number(broker.slice(i + 1)) || 9092, timeout: 1500 });
      socket.on('connect', () => process.exit(0));
      const fail = () => { socket.destroy(); if (--pending === 0) process.exit(1); };
      socket.on('error', fail);
      socket.on('timeout', fail);
    }`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 5_000 }).status === 0;
}

const adapters: Adapter[] = [
  { name: 'embedded log on PostgreSQL', open: () => onTestServer(), patienceMs: 10_000, concurrentTransactions: true },
  { name: 'embedded log on in-memory PGlite', open: onPGlite, patienceMs: 10_000, concurrentTransactions: false },
];
const kafkaAdapter: Adapter = {
  name: `Kafka (${kafkaBrokers.join(',') || 'no brokers'})`,
  open: () => onTestServer(kafkaBrokers),
  patienceMs: 30_000,
  concurrentTransactions: true,
};

for (const adapter of adapters) describeContract(adapter, describe);
if (kafkaReachable(kafkaBrokers)) {
  describeContract(kafkaAdapter, describe);
} else {
  console.warn('Kafka contract run skipped: KAFKA_BROKERS not set or unreachable');
  describeContract(kafkaAdapter, describe.skip);
}

function describeContract(adapter: Adapter, describeFn: jest.Describe): void {
  describeFn(`event bus contract: ${adapter.name}`, () => {
    const timeoutMs = adapter.patienceMs * 3;
    const it = (name: string, fn: () => Promise<void>) => test(name, fn, timeoutMs);
    let harness: Harness;
    const subscriptions: Subscription[] = [];
    const wait = (description: string, check: () => boolean | void) => waitUntil(description, check, adapter.patienceMs);

    beforeAll(async () => {
      harness = await adapter.open();
    }, timeoutMs);
    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    });
    afterAll(async () => {
      await harness?.close();
    });

    async function subscribe(opts: SubscribeOptions): Promise<Subscription> {
      const sub = await harness.bus.subscribe(opts);
      subscriptions.push(sub);
      return sub;
    }

    function publishCommitted(events: OutgoingEvent[]): Promise<void> {
      return harness.database.db.transaction().execute((trx) => harness.bus.publishInTransaction(trx, events));
    }

    /** Publishes, then waits until a group of its own has seen the events: they are committed and readable. */
    async function publishAndSettle(topic: string, events: OutgoingEvent[]): Promise<void> {
      const probe = new Recorder();
      await subscribe({ group: `probe-${topic}`, topics: [topic], handler: probe.handler });
      await publishCommitted(events);
      await wait('the probe group saw every event', () => probe.has(events.map(idOf)));
    }

    it('delivers events published in a committed transaction and events published outside one', async () => {
      const topic = uniqueTopic('committed');
      const recorder = new Recorder();
      await subscribe({ group: 'committed', topics: [topic], handler: recorder.handler });
      const inTransaction = makeEvents(topic, 3, { label: 'trx' });
      const direct = makeEvents(topic, 2, { label: 'direct' });

      await publishCommitted(inTransaction);
      await harness.bus.publish(direct);

      const expected = [...inTransaction, ...direct].map(idOf);
      await wait('every event arrived', () => recorder.has(expected));
      expect(recorder.ids().sort()).toEqual(expected.sort());
      const first = recorder.handled[0]!;
      expect(first.topic).toBe(topic);
      expect(first.key).toBe('k');
      expect(first.payload).toEqual(expect.objectContaining({ id: expect.any(String), seq: expect.any(Number) }));
      expect(typeof first.offset).toBe('string');
      expect(Number.isNaN(Date.parse(first.publishedAt))).toBe(false);
    });

    it('hands payloads over as parsed JSON values of any shape', async () => {
      const topic = uniqueTopic('payloads');
      const received: Array<{ key: string; payload: unknown }> = [];
      await subscribe({
        group: 'payloads',
        topics: [topic],
        handler: async (batch) => {
          received.push(...batch.map((e) => ({ key: e.key, payload: e.payload })));
        },
      });
      const payloads: Record<string, unknown> = {
        object: { name: 'Bolt', data: { size: 'M8', tags: ['din', 933] } },
        text: 'just a string, not an object',
        number: 42.5,
        list: [1, 'two', { three: 3 }],
        nothing: null,
        unicode: { name: 'Schraube – Größe ✓' },
      };
      const events = Object.entries(payloads).map(([key, payload]) => ({ topic, key, payload }));

      await publishCommitted(events.slice(0, 3));
      await harness.bus.publish(events.slice(3));

      await wait('every payload arrived', () => received.length >= events.length);
      expect(Object.fromEntries(received.map((r) => [r.key, r.payload]))).toEqual(payloads);
    });

    it('never delivers the events of a rolled-back transaction', async () => {
      const topic = uniqueTopic('rollback');
      const recorder = new Recorder();
      await subscribe({ group: 'rollback', topics: [topic], handler: recorder.handler });
      const rolledBack = makeEvents(topic, 3, { label: 'rolled-back' });
      const committed = makeEvents(topic, 1, { label: 'committed' });

      await expect(
        harness.database.db.transaction().execute(async (trx) => {
          await harness.bus.publishInTransaction(trx, rolledBack);
          throw new Error('the write failed');
        }),
      ).rejects.toThrow('the write failed');
      await publishCommitted(committed);

      await wait('the committed event arrived', () => recorder.has(committed.map(idOf)));
      await sleep(200);
      expect(recorder.ids()).toEqual(committed.map(idOf));
    });

    it('delivers the events of one key in the order they were written', async () => {
      const topic = uniqueTopic('order');
      const recorder = new Recorder();
      await subscribe({ group: 'order', topics: [topic], handler: recorder.handler, maxBatchSize: 4 });
      const events = makeEvents(topic, 30, { keys: ['a', 'b', 'c'] });

      for (let i = 0; i < events.length; i += 5) await publishCommitted(events.slice(i, i + 5));

      await wait('every event arrived', () => recorder.has(events.map(idOf)));
      for (const key of ['a', 'b', 'c']) {
        const seqs = recorder.handled.filter((e) => e.key === key).map((e) => (e.payload as { seq: number }).seq);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
        expect(seqs).toHaveLength(10);
      }
    });

    it('hands every event over exactly once while many transactions commit concurrently and it reads small batches', async () => {
      const topic = uniqueTopic('concurrent');
      const recorder = new Recorder();
      await subscribe({ group: 'concurrent', topics: [topic], handler: recorder.handler, maxBatchSize: 7 });
      const writers = 8;
      const transactionsEach = 10;
      const events = makeEvents(topic, writers * transactionsEach * 3, { keys: ['a', 'b', 'c', 'd'] });

      // Each writer commits its share three events at a time, racing the others and the reads.
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let t = 0; t < transactionsEach; t++) {
            const start = (w * transactionsEach + t) * 3;
            await publishCommitted(events.slice(start, start + 3));
          }
        }),
      );

      await wait('every event arrived', () => recorder.has(events.map(idOf)));
      await sleep(200);
      expect(recorder.ids().sort()).toEqual(events.map(idOf).sort());
    });

    it('resumes a restarted consumer from its committed position, redelivering nothing it handled and losing nothing', async () => {
      const topic = uniqueTopic('restart');
      const before = makeEvents(topic, 5, { label: 'before' });
      const during = makeEvents(topic, 5, { label: 'while-stopped' });
      const first = new Recorder();
      const sub = await subscribe({ group: 'restart', topics: [topic], handler: first.handler, maxBatchSize: 2 });

      await publishCommitted(before);
      await wait('the first consumer handled its events', () => first.has(before.map(idOf)));
      await sub.stop();
      await publishCommitted(during);
      const second = new Recorder();
      await subscribe({ group: 'restart', topics: [topic], handler: second.handler, maxBatchSize: 2 });

      await wait('the restarted consumer caught up', () => second.has(during.map(idOf)));
      await sleep(200);
      expect(first.ids()).toEqual(before.map(idOf));
      expect(second.ids()).toEqual(during.map(idOf));
    });

    it("answers ping, and counts as lag the events a group has yet to commit, on its topics only", async () => {
      await expect(harness.bus.ping()).resolves.toBeUndefined();
      const topic = uniqueTopic('lag');
      const other = uniqueTopic('lag-other');
      await publishCommitted([...makeEvents(topic, 5, { label: 'first' }), ...makeEvents(other, 2)]);
      // A group that never read has everything retained ahead of it.
      await wait('five events are ahead of a new group', async () => expect(await harness.bus.lag('lag', [topic])).toBe(5));

      const recorder = new Recorder();
      const sub = await subscribe({ group: 'lag', topics: [topic], handler: recorder.handler, maxBatchSize: 2 });
      await wait('the group committed all it read', async () => expect(await harness.bus.lag('lag', [topic])).toBe(0));
      await sub.stop();
      await publishCommitted(makeEvents(topic, 3, { label: 'second' }));
      await wait('three events are ahead again', async () => expect(await harness.bus.lag('lag', [topic])).toBe(3));
      expect(await harness.bus.lag('lag', [topic, other])).toBe(5);
      expect(await harness.bus.lag('lag', [])).toBe(0);
    });

    it('redelivers a batch whose handler failed', async () => {
      const topic = uniqueTopic('redeliver');
      const events = makeEvents(topic, 3);
      const failOnce = idOf(events[1]!);
      let failed = false;
      const recorder = new Recorder((batch) => {
        if (!failed && batch.some((e) => idOf(e) === failOnce)) {
          failed = true;
          throw new Error('downstream unavailable');
        }
      });
      await subscribe({ group: 'redeliver', topics: [topic], handler: recorder.handler });

      await publishCommitted(events);

      await wait('every event was handled', () => recorder.has(events.map(idOf)));
      const attempts = recorder.deliveries.flat().filter((e) => idOf(e) === failOnce);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(recorder.ids()).toEqual(events.map(idOf));
    });

    it('delivers every event to each of two groups', async () => {
      const topic = uniqueTopic('groups');
      const search = new Recorder();
      const billing = new Recorder();
      await subscribe({ group: 'search', topics: [topic], handler: search.handler });
      await subscribe({ group: 'billing', topics: [topic], handler: billing.handler });
      const events = makeEvents(topic, 6, { keys: ['a', 'b'] });

      await publishCommitted(events);

      await wait('both groups saw every event', () => search.has(events.map(idOf)) && billing.has(events.map(idOf)));
      expect(search.ids().sort()).toEqual(events.map(idOf).sort());
      expect(billing.ids().sort()).toEqual(events.map(idOf).sort());
    });

    it('hands each event to exactly one of two members of the same group', async () => {
      const topic = uniqueTopic('members');
      const seen: string[] = [];
      const member = new Recorder((batch) => {
        seen.push(...batch.map(idOf));
      });
      const other = new Recorder((batch) => {
        seen.push(...batch.map(idOf));
      });
      await subscribe({ group: 'indexers', topics: [topic], handler: member.handler });
      await subscribe({ group: 'indexers', topics: [topic], handler: other.handler });
      const events = makeEvents(topic, 20, { keys: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] });

      for (let i = 0; i < events.length; i += 4) await publishCommitted(events.slice(i, i + 4));

      await wait('the group saw every event', () => new Set(seen).size === events.length);
      await sleep(300);
      expect([...seen].sort()).toEqual(events.map(idOf).sort());
    });

    it('starts an ephemeral subscription at the end of the log', async () => {
      const topic = uniqueTopic('ephemeral');
      const earlier = makeEvents(topic, 3, { label: 'earlier' });
      const later = makeEvents(topic, 3, { label: 'later' });
      await publishAndSettle(topic, earlier);
      const cache = new Recorder();
      await subscribe({ group: 'key-cache', topics: [topic], handler: cache.handler, ephemeral: true });

      await publishCommitted(later);

      await wait('the ephemeral subscription saw the later events', () => cache.has(later.map(idOf)));
      await sleep(200);
      expect(cache.ids()).toEqual(later.map(idOf));
    });

    it('starts an ephemeral subscription with `since` at the first event published since then', async () => {
      const topic = uniqueTopic('ephemeral-since');
      const before = makeEvents(topic, 3, { label: 'before' });
      const since = makeEvents(topic, 2, { label: 'since' });
      const later = makeEvents(topic, 2, { label: 'later' });
      await publishAndSettle(topic, before);
      await sleep(50);
      const from = new Date();
      await sleep(50);
      await publishCommitted(since);
      const cache = new Recorder();
      await subscribe({ group: 'plans', topics: [topic], handler: cache.handler, ephemeral: true, since: from });

      await publishCommitted(later);

      await wait('the subscription saw the events since then and the later ones', () => cache.has([...since, ...later].map(idOf)));
      await sleep(200);
      expect(cache.ids()).toEqual([...since, ...later].map(idOf));
    });

    it('gives every ephemeral subscription every event, even when they share a group name', async () => {
      const topic = uniqueTopic('replicas');
      const replicaA = new Recorder();
      const replicaB = new Recorder();
      await subscribe({ group: 'gateway-key-cache', topics: [topic], handler: replicaA.handler, ephemeral: true });
      await subscribe({ group: 'gateway-key-cache', topics: [topic], handler: replicaB.handler, ephemeral: true });
      const events = makeEvents(topic, 4, { keys: ['a', 'b'] });

      await publishCommitted(events);

      await wait('both replicas saw every event', () => replicaA.has(events.map(idOf)) && replicaB.has(events.map(idOf)));
      expect(replicaA.ids().sort()).toEqual(events.map(idOf).sort());
      expect(replicaB.ids().sort()).toEqual(events.map(idOf).sort());
    });

    if (adapter.concurrentTransactions && adapter.name.startsWith('embedded')) {
      describe('transactions committing out of order', () => {
        it('still delivers an event whose transaction commits after a later-numbered one was handled', async () => {
          const topic = uniqueTopic('late-commit');
          const recorder = new Recorder();
          await subscribe({ group: 'late-commit', topics: [topic], handler: recorder.handler });
          const [eventA, eventB] = [makeEvents(topic, 1, { label: 'A' })[0]!, makeEvents(topic, 1, { label: 'B' })[0]!];
          const db = harness.database.db;
          // B takes its transaction id first; A then writes its event first (lower position) and stays open. With a
          // plain sequence the consumer would move past A's position when it handles B, and never see A.
          const trxB = await db.startTransaction().execute();
          const trxA = await db.startTransaction().execute();
          try {
            await sql`select pg_current_xact_id()`.execute(trxB);
            await harness.bus.publishInTransaction(trxA, [eventA]);
            await harness.bus.publishInTransaction(trxB, [eventB]);
            await trxB.commit().execute();

            await wait('the consumer handled B', () => recorder.has([idOf(eventB)]));
            expect(recorder.ids()).toEqual([idOf(eventB)]);
            await trxA.commit().execute();
          } finally {
            if (!trxA.isCommitted) await trxA.rollback().execute();
          }

          await wait('the consumer handled A', () => recorder.has([idOf(eventA)]));
          expect(recorder.ids()).toEqual([idOf(eventB), idOf(eventA)]);
        });

        it('holds back a committed event until an older transaction still writing has finished, then delivers both in order', async () => {
          const topic = uniqueTopic('held-back');
          const recorder = new Recorder();
          await subscribe({ group: 'held-back', topics: [topic], handler: recorder.handler });
          const [eventA, eventB] = [makeEvents(topic, 1, { label: 'A' })[0]!, makeEvents(topic, 1, { label: 'B' })[0]!];
          const db = harness.database.db;
          const trxA = await db.startTransaction().execute();
          try {
            await harness.bus.publishInTransaction(trxA, [eventA]);
            await db.transaction().execute((trx) => harness.bus.publishInTransaction(trx, [eventB]));

            await sleep(300);
            expect(recorder.ids()).toEqual([]);
            await trxA.commit().execute();
          } finally {
            if (!trxA.isCommitted) await trxA.rollback().execute();
          }

          await wait('both events arrived', () => recorder.has([idOf(eventA), idOf(eventB)]));
          expect(recorder.ids()).toEqual([idOf(eventA), idOf(eventB)]);
        });
      });
    }
  });
}
