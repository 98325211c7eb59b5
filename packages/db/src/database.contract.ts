import { sql } from 'kysely';
import { copyInto } from './copy';
import { prepared } from './prepared';
import type { Database } from './port';

/**
 * One contract, both adapters: a PostgreSQL server and PGlite call this with a way to open a fresh, empty database.
 * Only what a caller of the port can observe is asserted; what holds for one adapter alone (PGlite's one connection,
 * the PostgreSQL LISTEN connection's reconnect) is tested beside that adapter.
 */
export interface DatabaseHarness {
  /** A fresh, empty database on one connection (a PostgreSQL pool of one), so a failed COPY is followed on its connection. */
  database: Database;
  /** Removes what the harness made (the database on the server, the data folder); `database` is closed already. */
  done(): Promise<void>;
}

const TRICKY = ['plain', 'tab\there', 'new\nline', 'carriage\rreturn', 'back\\slash', '\\N', '\\.', 'ünïcødé ✓ 😀', ''];

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function databaseContract(name: string, open: () => Promise<DatabaseHarness>): void {
  describe(`database contract: ${name}`, () => {
    let harness: DatabaseHarness;
    let database: Database;
    let closed = false;

    beforeAll(async () => {
      harness = await open();
      database = harness.database;
      await sql`create table steps (trx text not null, step int not null, at serial primary key)`.execute(database.db);
    });
    afterAll(async () => {
      if (!closed) await database?.close();
      await harness?.done();
    });

    describe('transactions', () => {
      beforeEach(async () => {
        await sql`delete from steps`.execute(database.db);
      });

      it('keeps what a transaction wrote once it commits, and nothing of one that throws', async () => {
        await database.db.transaction().execute(async (t) => {
          await sql`insert into steps (trx, step) values ('committed', 0), ('committed', 1)`.execute(t);
        });
        await expect(
          database.db.transaction().execute(async (t) => {
            await sql`insert into steps (trx, step) values ('thrown', 0)`.execute(t);
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');

        const rows = await sql<{ trx: string; step: number }>`select trx, step from steps order by at`.execute(database.db);
        expect(rows.rows).toEqual([
          { trx: 'committed', step: 0 },
          { trx: 'committed', step: 1 },
        ]);
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

      it('runs several statements given as one parameterless text', async () => {
        await sql.raw(`insert into steps (trx, step) values ('multi', 0); insert into steps (trx, step) values ('multi', 1);`).execute(database.db);

        const rows = await sql<{ step: number }>`select step from steps where trx = 'multi' order by at`.execute(database.db);
        expect(rows.rows.map((r) => r.step)).toEqual([0, 1]);
      });
    });

    describe('LISTEN and NOTIFY', () => {
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

      it('delivers to every subscriber of a channel, and no longer to one that unsubscribed', async () => {
        const first: string[] = [];
        const second: string[] = [];
        const unlistenFirst = await database.listen('shared_channel', (payload) => first.push(payload));
        const unlistenSecond = await database.listen('shared_channel', (payload) => second.push(payload));

        await sql`select pg_notify('shared_channel', 'both')`.execute(database.db);
        await waitUntil(() => first.length > 0 && second.length > 0);
        await unlistenFirst();
        await sql`select pg_notify('shared_channel', 'second only')`.execute(database.db);
        await waitUntil(() => second.length > 1);

        expect(first).toEqual(['both']);
        expect(second).toEqual(['both', 'second only']);
        await unlistenSecond();
      });
    });

    describe('int8', () => {
      it('reads int8 values as numbers', async () => {
        const rows = await sql<{ n: unknown }>`select 9007199254740991::int8 as n`.execute(database.db);
        expect(rows.rows[0]!.n).toBe(9007199254740991);
      });

      it('reads a count and a bigserial id as numbers', async () => {
        await sql`create table counted (id bigserial primary key)`.execute(database.db);
        await sql`insert into counted default values`.execute(database.db);

        const rows = await sql<{ id: unknown; n: unknown }>`select id, (select count(*) from counted) as n from counted`.execute(database.db);
        expect(rows.rows).toEqual([{ id: 1, n: 1 }]);
      });
    });

    describe('statements marked prepared', () => {
      it('answer each run for its own values, inside and outside a transaction', async () => {
        const run = (db: Database['db'], word: string, limit: number) =>
          sql<{ w: string }>`${prepared} select w from unnest(${['bolt', 'washer', 'nut', 'washer']}::text[]) w where w = ${word} limit ${limit}`
            .execute(db)
            .then((r) => r.rows.map((row) => row.w));
        for (let i = 0; i < 3; i++) {
          expect(await run(database.db, 'washer', 5)).toEqual(['washer', 'washer']);
          expect(await run(database.db, 'bolt', 5)).toEqual(['bolt']);
          expect(await run(database.db, 'washer', 1)).toEqual(['washer']);
        }
        expect(await database.db.transaction().execute((trx) => run(trx, 'nut', 5))).toEqual(['nut']);
      });
    });

    describe('COPY through copyInto', () => {
      beforeAll(async () => {
        await sql`
          create table copied (
            position serial primary key,
            label text unique,
            note text,
            n integer,
            flag boolean,
            data json,
            doc jsonb,
            at timestamptz,
            added_at timestamptz not null default now()
          )
        `.execute(database.db);
      });
      beforeEach(async () => {
        await sql`truncate copied restart identity`.execute(database.db);
      });

      it('stores text with tabs, newlines, backslashes and any Unicode exactly, and null as NULL', async () => {
        const rows = TRICKY.map((t, i) => [`label ${i}`, t]);
        rows.push(['null note', null]);
        await expect(copyInto(database.db, 'copied', ['label', 'note'], rows)).resolves.toBe(rows.length);

        const read = await sql<{ label: string; note: string | null }>`select label, note from copied order by position`.execute(database.db);
        expect(read.rows.map((r) => [r.label, r.note])).toEqual(rows);
      });

      it('stores numbers, booleans, dates and objects as JSON, and fills left-out columns with their defaults in row order', async () => {
        const at = new Date('2026-11-25T08:00:00.123Z');
        const data = { quote: 'say "hi"', path: 'C:\\dir\\file', lines: 'a\nb', nested: { list: [1, true, null] } };
        await copyInto(database.db, 'copied', ['label', 'n', 'flag', 'data', 'doc', 'at'], [
          ['first', 42, true, data, data, at],
          ['second', -7, false, [1, 2], { a: 1 }, at],
        ]);

        const read = await sql<{ position: number; label: string; n: number; flag: boolean; data: unknown; doc: unknown; at: Date; added: boolean }>`
          select position, label, n, flag, data, doc, at, added_at is not null as added from copied order by position
        `.execute(database.db);
        expect(read.rows.map((r) => r.label)).toEqual(['first', 'second']);
        expect(read.rows.map((r) => r.position)).toEqual([1, 2]);
        expect(read.rows[0]).toMatchObject({ n: 42, flag: true, data, doc: data, added: true });
        expect(new Date(read.rows[0]!.at).toISOString()).toBe(at.toISOString());
        expect(read.rows[1]).toMatchObject({ n: -7, flag: false, data: [1, 2], doc: { a: 1 } });
      });

      it('is part of the transaction: rolled back with it, and a constraint violation fails the whole COPY', async () => {
        await database.db
          .transaction()
          .execute(async (trx) => {
            await copyInto(trx, 'copied', ['label'], [['kept only if committed']]);
            throw new Error('undo');
          })
          .catch(() => undefined);
        await copyInto(database.db, 'copied', ['label'], [['taken']]);
        await expect(
          database.db.transaction().execute((trx) => copyInto(trx, 'copied', ['label'], [['fresh'], ['taken']])),
        ).rejects.toThrow(/duplicate key/);

        const read = await sql<{ label: string }>`select label from copied order by position`.execute(database.db);
        expect(read.rows.map((r) => r.label)).toEqual(['taken']);
        // The connection is usable after the failed COPY (both adapters have a single one here).
        await expect(copyInto(database.db, 'copied', ['label'], [['after']])).resolves.toBe(1);
      });

      it('sends nothing for no rows and refuses names that are not plain identifiers', async () => {
        await expect(copyInto(database.db, 'copied', ['label'], [])).resolves.toBe(0);
        await expect(copyInto(database.db, 'copied; drop table copied', ['label'], [['x']])).rejects.toThrow(/not a plain/);
        await expect(copyInto(database.db, 'copied', ['label'], [['x', 'y']])).rejects.toThrow(/2 values for 1 columns/);
      });
    });

    describe('ping and close', () => {
      it('answers ping while open and refuses it once closed', async () => {
        await expect(database.ping()).resolves.toBeUndefined();
        await database.close();
        closed = true;
        await expect(database.ping()).rejects.toThrow();
      });
    });
  });
}
