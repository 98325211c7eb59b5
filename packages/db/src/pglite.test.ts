import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import { openDatabase } from './factory';
import type { Database } from './port';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PGlite is one connection: what the contract leaves open, that borrowers of it take turns, holds here. */
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

  it('runs a long statement without holding the process: timers fire while it runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    try {
      await sql`select count(*) from generate_series(1, 3000000) g where g % 7 = 3`.execute(database.db);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    // In the main thread the statement would hold it from start to end and no timer could fire until it ended.
    expect(elapsed).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 5 / 4));
  });

  it('refuses statements once closed instead of leaving them unanswered', async () => {
    const other = await openDatabase({ inMemory: true });
    await other.close();
    await expect(sql`select 1`.execute(other.db)).rejects.toThrow();
  });

  it('gives the connection next to the waiting tenant that held it least, not to the one that asked first', async () => {
    const tenant = new AsyncLocalStorage<string>();
    const shared = await openDatabase({ inMemory: true, shareKey: () => tenant.getStore() });
    try {
      await sql`create table turns (who text not null, at serial primary key)`.execute(shared.db);
      const hold = (who: string, ms: number) =>
        tenant.run(who, () =>
          shared.db.transaction().execute(async (t) => {
            await sql`insert into turns (who) values (${who})`.execute(t);
            await pause(ms);
          }),
        );
      // A has held the connection for a while; then, while A holds it again, A asks twice more before B asks once.
      await hold('a', 150);
      const running = hold('a', 50);
      await pause(10);
      const queued = [hold('a', 1), hold('a', 1)];
      await pause(10);
      const b = hold('b', 1);
      await Promise.all([running, ...queued, b]);
      const rows = await sql<{ who: string }>`select who from turns order by at`.execute(shared.db);
      expect(rows.rows.map((r) => r.who).join('')).toBe('aabaa');
    } finally {
      await shared.close();
    }
  });
});
