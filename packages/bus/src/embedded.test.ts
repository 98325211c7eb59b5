import { sql } from 'kysely';
import { migrate } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { idOf, makeEvents, Recorder, uniqueTopic, waitUntil } from './__tests__/support';
import { EmbeddedEventBus } from './embedded';
import { busMigrations } from './migrations';

/** Embedded-log details the shared contract cannot see: how it keeps its offsets table. */

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'embedded-test' });
let test: TestDatabase;
let bus: EmbeddedEventBus;

beforeAll(async () => {
  test = await createTestDatabase();
  await migrate(test.database, 'bus', busMigrations);
  bus = new EmbeddedEventBus(test.database, logger);
});
afterEach(() => {
  jest.restoreAllMocks();
});
afterAll(async () => {
  await bus.close();
  await test.drop();
});

async function groups(): Promise<string[]> {
  const rows = await sql<{ grp: string }>`select grp from bus.consumer_offsets order by grp`.execute(test.database.db);
  return rows.rows.map((r) => r.grp);
}

async function updatedAt(group: string): Promise<Date> {
  const rows = await sql<{ updated_at: Date }>`select updated_at from bus.consumer_offsets where grp = ${group}`.execute(test.database.db);
  return rows.rows[0]!.updated_at;
}

describe('embedded log offsets', () => {
  it('forgets an ephemeral position when its subscription stops, and keeps a durable one', async () => {
    const topic = uniqueTopic('forget');
    const durable = await bus.subscribe({ group: 'forget-durable', topics: [topic], handler: async () => undefined });
    const ephemeral = await bus.subscribe({ group: 'forget-cache', topics: [topic], handler: async () => undefined, ephemeral: true });
    expect((await groups()).filter((g) => g.includes('forget'))).toEqual([expect.stringMatching(/^ephemeral:forget-cache:/), 'forget-durable']);

    await ephemeral.stop();
    await durable.stop();

    expect((await groups()).filter((g) => g.includes('forget'))).toEqual(['forget-durable']);
  });

  it('removes positions that crashed ephemeral subscriptions left behind, and keeps live ones', async () => {
    const topic = uniqueTopic('crashed');
    await sql`
      insert into bus.consumer_offsets (grp, updated_at, lease_owner, lease_until)
      values ('ephemeral:crashed-cache:dead', now() - interval '3 hours', 'gone', now() - interval '2 hours')
    `.execute(test.database.db);
    const live = new Recorder();
    await bus.subscribe({ group: 'crashed-cache', topics: [topic], handler: live.handler, ephemeral: true });
    const liveGroup = (await groups()).find((g) => g.startsWith('ephemeral:crashed-cache:') && !g.endsWith(':dead'))!;
    // The live subscription has been idle for hours; its keep-alive must refresh its row before anyone cleans up.
    await sql`update bus.consumer_offsets set updated_at = now() - interval '3 hours' where grp = ${liveGroup}`.execute(test.database.db);
    const realNow = Date.now();
    const clock = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => clock() + 10 * 60_000);
    await waitUntil('the live subscription kept its position alive', async () => (await updatedAt(liveGroup)).getTime() > realNow - 60_000);

    await bus.subscribe({ group: 'crashed-cache', topics: [topic], handler: async () => undefined, ephemeral: true });

    const remaining = (await groups()).filter((g) => g.startsWith('ephemeral:crashed-cache:'));
    expect(remaining).toHaveLength(2);
    expect(remaining).toContain(liveGroup);
    expect(remaining).not.toContain('ephemeral:crashed-cache:dead');
    const events = makeEvents(topic, 2);
    await bus.publish(events);
    await waitUntil('the live subscription still receives events', () => live.has(events.map(idOf)));
  });
});

describe('embedded log order', () => {
  it('delivers by transaction id as a number, one event at a time, across a change in its number of digits', async () => {
    const topic = uniqueTopic('order');
    // Transaction ids written directly (far below any running transaction, so all readable): in text order "10" and
    // "11" come before "9", and a batch taken in that order committed a position past the events of transaction 9.
    const rows = [
      ['9', 'e-0'],
      ['10', 'e-1'],
      ['10', 'e-2'],
      ['11', 'e-3'],
    ];
    for (const [txid, id] of rows) {
      await sql`insert into bus.events (txid, topic, key, payload) values (${txid}::xid8, ${topic}, 'k', ${JSON.stringify({ id })}::json)`.execute(
        test.database.db,
      );
    }
    const recorder = new Recorder();

    await bus.subscribe({ group: `order-${topic}`, topics: [topic], handler: recorder.handler, maxBatchSize: 1 });

    await waitUntil('every event was delivered', () => recorder.has(['e-0', 'e-1', 'e-2', 'e-3']));
    expect(recorder.ids()).toEqual(['e-0', 'e-1', 'e-2', 'e-3']);
  });
});

describe('embedded log retention', () => {
  async function payloadIds(topic: string): Promise<string[]> {
    const rows = await sql<{ id: string }>`select payload->>'id' as id from bus.events where topic = ${topic} order by position`.execute(test.database.db);
    return rows.rows.map((r) => r.id);
  }

  async function age(topic: string, ids: string[], interval: string): Promise<void> {
    await sql`
      update bus.events set published_at = now() - ${interval}::interval where topic = ${topic} and payload->>'id' = any(${ids}::text[])
    `.execute(test.database.db);
  }

  it('deletes events older than the retention period and keeps the rest, which are still delivered', async () => {
    const topic = uniqueTopic('retention');
    const events = makeEvents(topic, 4);
    await bus.publish(events);
    await age(topic, ['e-0', 'e-1'], '2 hours');
    const kept = new EmbeddedEventBus(test.database, logger, { retentionMs: 60 * 60_000 });

    expect(await kept.pruneExpired()).toBeGreaterThanOrEqual(2);

    expect(await payloadIds(topic)).toEqual(['e-2', 'e-3']);
    const recorder = new Recorder();
    await kept.subscribe({ group: `retention-${topic}`, topics: [topic], handler: recorder.handler });
    await waitUntil('the kept events were delivered', () => recorder.has(['e-2', 'e-3']));
    expect(recorder.ids()).toEqual(['e-2', 'e-3']);
    await kept.close();
  });

  it('deletes expired events on its own once started, and keeps everything without a retention period', async () => {
    const topic = uniqueTopic('retention-timer');
    await bus.publish(makeEvents(topic, 2));
    await age(topic, ['e-0', 'e-1'], '10 days');

    expect(await bus.pruneExpired()).toBe(0);
    expect(await payloadIds(topic)).toEqual(['e-0', 'e-1']);

    const kept = new EmbeddedEventBus(test.database, logger, { retentionMs: 2_000 });
    await kept.start();
    await waitUntil('the expired events are gone', async () => (await payloadIds(topic)).length === 0, 10_000);
    await kept.close();
  });
});
