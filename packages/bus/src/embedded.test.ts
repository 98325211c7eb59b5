import { sql } from 'kysely';
import { migrate } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase, type TestDatabase } from '@trove/runtime';
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
