import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, TEST_SERVER_URL, type TestDatabase } from '@trove/testing';

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The PostgreSQL adapter's own LISTEN connection, which the contract cannot reach: it is not part of the port. */
describe('PostgreSQL database', () => {
  let test: TestDatabase;

  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  it('keeps delivering notifications after its listening connection was dropped', async () => {
    const received: string[] = [];
    const unlisten = await test.database.listen('reconnect_channel', (payload) => received.push(payload));
    const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
    try {
      const dbName = new URL(test.url).pathname.slice(1);
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = 'trove-listen'`,
        [dbName],
      );
      expect(killed.rowCount).toBe(1);
    } finally {
      await admin.end();
    }

    await waitUntil(() => {
      sql`select pg_notify('reconnect_channel', 'after')`.execute(test.database.db).catch(() => undefined);
      return received.includes('after');
    }, 15_000);
    await unlisten();
  });
});
