import { sql } from 'kysely';
import { migrate, openDatabase, type Database } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { makeEvents, sleep, waitUntil } from './__tests__/support';
import { busMigrations } from './migrations';
import { OutboxRelay, writeOutbox, type OutboxMessage, type OutboxSender } from './outbox';
import type { OutgoingEvent } from './port';

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'outbox-test' });

let test: TestDatabase;
let database: Database;
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  test = await createTestDatabase();
  database = test.database;
  await migrate(database, 'bus', busMigrations);
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await sql`delete from bus.outbox`.execute(database.db);
});
afterAll(async () => {
  await test.drop();
});

function relay(send: OutboxSender, opts: { batchSize?: number; pollIntervalMs?: number; on?: Database } = {}): OutboxRelay {
  const r = new OutboxRelay({ database: opts.on ?? database, logger, send, batchSize: opts.batchSize, pollIntervalMs: opts.pollIntervalMs });
  relays.push(r);
  return r;
}

function write(events: OutgoingEvent[]): Promise<void> {
  return database.db.transaction().execute((trx) => writeOutbox(trx, events));
}

async function outboxIds(): Promise<number[]> {
  const rows = await sql<{ id: number }>`select id from bus.outbox order by id`.execute(database.db);
  return rows.rows.map((r) => Number(r.id));
}

describe('outbox relay', () => {
  it('sends rows in the order they were written, batch by batch, and deletes them once acknowledged', async () => {
    const batches: OutboxMessage[][] = [];
    const r = relay(async (messages) => void batches.push(messages), { batchSize: 3 });
    await write(makeEvents('records.changed', 7, { keys: ['a', 'b'] }));

    while ((await r.relayOnce()) > 0);

    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    const sent = batches.flat();
    expect(sent.map((m) => JSON.parse(m.payload).seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(sent[0]).toEqual(expect.objectContaining({ topic: 'records.changed', key: 'a', createdAt: expect.any(Date) }));
    expect(await outboxIds()).toEqual([]);
  });

  it('keeps the rows when the broker does not acknowledge, and sends them again on the next pass', async () => {
    let fail = true;
    const sent: OutboxMessage[] = [];
    const r = relay(async (messages) => {
      if (fail) throw new Error('broker unreachable');
      sent.push(...messages);
    });
    await write(makeEvents('records.changed', 2));

    await expect(r.relayOnce()).rejects.toThrow('broker unreachable');
    expect(await outboxIds()).toHaveLength(2);
    fail = false;
    expect(await r.relayOnce()).toBe(2);

    expect(sent.map((m) => JSON.parse(m.payload).seq)).toEqual([0, 1]);
    expect(await outboxIds()).toEqual([]);
  });

  it('writes nothing when the transaction rolls back', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await writeOutbox(trx, makeEvents('records.changed', 2));
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');

    expect(await outboxIds()).toEqual([]);
  });

  it('lets one replica send at a time, and the others take over once it is done', async () => {
    const otherReplica = await openDatabase({ url: test.url, poolSize: 2 });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let sending!: () => void;
      const inSend = new Promise<void>((resolve) => (sending = resolve));
      const first = relay(() => {
        sending();
        return held;
      });
      const secondSent: OutboxMessage[] = [];
      const second = relay(async (messages) => void secondSent.push(...messages), { on: otherReplica });
      await write(makeEvents('records.changed', 2));

      const firstPass = first.relayOnce();
      // Inside its send, the first relay holds the lock (and the rows) until released.
      await inSend;
      expect(await second.relayOnce()).toBe(0);
      release();
      expect(await firstPass).toBe(2);
      await write(makeEvents('records.changed', 1, { label: 'later' }));
      expect(await second.relayOnce()).toBe(1);

      expect(secondSent.map((m) => JSON.parse(m.payload).id)).toEqual(['later-0']);
    } finally {
      await otherReplica.close();
    }
  });

  it('wakes on a committed outbox write instead of waiting for its poll interval', async () => {
    const sent: OutboxMessage[] = [];
    const r = relay(async (messages) => void sent.push(...messages), { pollIntervalMs: 60_000 });
    await r.start();
    await sleep(50);

    await write(makeEvents('records.changed', 1));

    await waitUntil('the relay sent the row', () => sent.length === 1, 5_000);
  });

  it('stops promptly when stopped while a pass is still sending', async () => {
    let release!: () => void;
    const sending = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const r = relay(
      async () => {
        started = true;
        await sending;
      },
      { pollIntervalMs: 60_000 },
    );
    await write(makeEvents('records.changed', 1));
    await r.start();
    await waitUntil('the pass is sending', () => started, 5_000);

    const stopped = r.stop();
    release();
    const t0 = Date.now();
    await stopped;

    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await outboxIds()).toEqual([]);
  });

  it('retries a failed pass in the background until the broker acknowledges', async () => {
    let attempts = 0;
    const sent: OutboxMessage[] = [];
    const r = relay(async (messages) => {
      attempts += 1;
      if (attempts < 3) throw new Error('broker unreachable');
      sent.push(...messages);
    });
    await write(makeEvents('records.changed', 2));

    await r.start();

    await waitUntil('the rows were sent', () => sent.length === 2, 5_000);
    expect(attempts).toBe(3);
    await waitUntil('the outbox is empty', async () => (await outboxIds()).length === 0, 5_000);
  });
});
