import pg from 'pg';
import { sql } from 'kysely';
import { openPostgres } from './postgres';
import { prepared } from './prepared';
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

  it('gives a bounded handle whose statements are cancelled at its timeout, the first handle unbounded', async () => {
    const bounded = await test.database.bounded!(100);
    try {
      await expect(sql`select pg_sleep(1)`.execute(bounded.db)).rejects.toMatchObject({ code: '57014' });
      await expect(sql`select pg_sleep(0.3)`.execute(test.database.db)).resolves.toBeDefined();
      // Every connection of its pool, not only the first.
      const many = await Promise.allSettled([1, 2, 3].map(() => sql`select pg_sleep(0.5)`.execute(bounded.db)));
      expect(many.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect((await sql<{ one: number }>`select 1 as one`.execute(bounded.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await bounded.close();
    }
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

  it('parses a statement marked prepared once per connection, and still plans each run for its values', async () => {
    await sql`create table prepared_probe (tenant text not null, n int not null)`.execute(test.database.db);
    await sql`insert into prepared_probe select case when i % 10 = 0 then 'small' else 'large' end, i from generate_series(1, 1000) i`.execute(
      test.database.db,
    );
    // One transaction, one connection: what that connection prepared is in its pg_prepared_statements.
    const { counts, statements } = await test.database.db.transaction().execute(async (trx) => {
      const counts: number[] = [];
      for (const tenant of ['small', 'large', 'small', 'large', 'small', 'large', 'small', 'large']) {
        const { rows } = await sql<{ n: number }>`${prepared} select count(*)::int as n from prepared_probe where tenant = ${tenant}`.execute(trx);
        counts.push(rows[0]!.n);
      }
      const statements = await sql<{ name: string; generic_plans: number; custom_plans: number }>`
        select name, generic_plans::int, custom_plans::int from pg_prepared_statements where statement like '%prepared_probe%'`.execute(trx);
      return { counts, statements: statements.rows };
    });
    expect(counts).toEqual([100, 900, 100, 900, 100, 900, 100, 900]);
    expect(statements).toEqual([{ name: expect.stringMatching(/^trove_[0-9a-f]{24}$/), generic_plans: 0, custom_plans: 8 }]);
  });

  it('runs a statement marked prepared unnamed, with no startup option, when prepared statements are off', async () => {
    const unprepared = await openPostgres(test.url, { poolSize: 1, preparedStatements: false });
    try {
      const { n, statements, mode } = await unprepared.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ n: number }>`${prepared} select count(*)::int as n from generate_series(1, ${5}) i`.execute(trx);
        const statements = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(trx);
        const mode = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(trx);
        return { n: rows[0]!.n, statements: statements.rows, mode: mode.rows[0]!.plan_cache_mode };
      });
      expect(n).toBe(5);
      expect(statements).toEqual([]);
      expect(mode).toBe('auto');
    } finally {
      await unprepared.close();
    }
  });
});
