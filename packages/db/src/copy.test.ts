import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { copyInto } from './copy';
import { openDatabase } from './factory';
import type { Database } from './port';

const TRICKY = ['plain', 'tab\there', 'new\nline', 'carriage\rreturn', 'back\\slash', '\\N', '\\.', 'ünïcødé ✓ 😀', ''];

/** The same behaviour on both adapters: what COPY stores reads back exactly, inside the caller's transaction. */
function copyCases(open: () => Promise<{ database: Database; done: () => Promise<void> }>) {
  let database: Database;
  let done: () => Promise<void>;

  beforeAll(async () => {
    ({ database, done } = await open());
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
  afterAll(async () => done());
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
}

describe('copyInto on PostgreSQL', () => {
  copyCases(async () => {
    const test: TestDatabase = await createTestDatabase();
    // One connection, so every case after a failed COPY runs on the connection that failed.
    const database = await openDatabase({ url: test.url, poolSize: 1 });
    return {
      database,
      done: async () => {
        await database.close();
        await test.drop();
      },
    };
  });
});

describe('copyInto on PGlite', () => {
  copyCases(async () => {
    const database = await openDatabase({ inMemory: true });
    return { database, done: () => database.close() };
  });
});
