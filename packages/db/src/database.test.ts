import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, TEST_SERVER_URL, type TestDatabase } from '@trove/testing';
import { openDatabase } from './factory';
import type { Database } from './port';

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PGlite database', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ inMemory: true });
    await sql`create table steps (trx text not null, step int not null, at serial primary key)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
  });
  beforeEach(async () => {
    await sql`delete from steps`.execute(database.db);
  });

  it('runs concurrent transactions one after the other, never interleaved', async () => {
    const work = (trx: string) =>
      database.db.transaction().execute(async (t) => {
        for (let step = 0; step < 3; step++) {
          await sql`insert into steps (trx, step) values (${trx}, ${step})`.execute(t);
          await pause(10);
        }
      });

    await Promise.all([work('a'), work('b'), work('c')]);

    const rows = await sql<{ trx: string }>`select trx from steps order by at`.execute(database.db);
    const order = rows.rows.map((r) => r.trx).join('');
    expect(order).toMatch(/^(aaa|bbb|ccc){3}$/);
    expect(new Set(order.match(/(.)\1\1/g))).toEqual(new Set(['aaa', 'bbb', 'ccc']));
  });

  it('rolls back one transaction without touching another that waited for the connection', async () => {
    const failing = database.db.transaction().execute(async (t) => {
      await sql`insert into steps (trx, step) values ('failing', 0)`.execute(t);
      await pause(20);
      throw new Error('boom');
    });
    const succeeding = database.db.transaction().execute(async (t) => {
      await sql`insert into steps (trx, step) values ('succeeding', 0)`.execute(t);
    });

    await expect(failing).rejects.toThrow('boom');
    await succeeding;

    const rows = await sql<{ trx: string }>`select trx from steps`.execute(database.db);
    expect(rows.rows.map((r) => r.trx)).toEqual(['succeeding']);
  });

  it('runs a query issued outside a transaction only after the open transaction ends', async () => {
    const trx = await database.db.startTransaction().execute();
    await sql`insert into steps (trx, step) values ('open', 0)`.execute(trx);
    let outsideDone = false;
    const outside = sql`insert into steps (trx, step) values ('outside', 0)`.execute(database.db).then(() => {
      outsideDone = true;
    });

    await pause(50);
    expect(outsideDone).toBe(false);
    await trx.rollback().execute();
    await outside;

    const rows = await sql<{ trx: string }>`select trx from steps`.execute(database.db);
    expect(rows.rows.map((r) => r.trx)).toEqual(['outside']);
  });

  it('keeps a LISTEN made while another transaction was open, even when that transaction rolls back', async () => {
    const received: string[] = [];
    const trx = await database.db.startTransaction().execute();
    const listening = database.listen('steps_channel', (payload) => received.push(payload));
    await pause(20);
    await trx.rollback().execute();
    const unlisten = await listening;

    await sql`select pg_notify('steps_channel', 'hello')`.execute(database.db);

    await waitUntil(() => received.length > 0);
    expect(received).toEqual(['hello']);
    await unlisten();
  });

  it('delivers a NOTIFY sent inside a transaction only when it commits', async () => {
    const received: string[] = [];
    const unlisten = await database.listen('commit_channel', (payload) => received.push(payload));

    await database.db
      .transaction()
      .execute(async (t) => {
        await sql`select pg_notify('commit_channel', 'rolled-back')`.execute(t);
        throw new Error('undo');
      })
      .catch(() => undefined);
    await database.db.transaction().execute((t) => sql`select pg_notify('commit_channel', 'committed')`.execute(t));

    await waitUntil(() => received.length > 0);
    expect(received).toEqual(['committed']);
    await unlisten();
  });
});

describe('PostgreSQL database', () => {
  let test: TestDatabase;

  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.drop();
  });

  it('answers ping', async () => {
    await expect(test.database.ping()).resolves.toBeUndefined();
  });

  it('reads int8 values as numbers', async () => {
    const rows = await sql<{ n: unknown }>`select 9007199254740991::int8 as n`.execute(test.database.db);
    expect(rows.rows[0]!.n).toBe(9007199254740991);
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
