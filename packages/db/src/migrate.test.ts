import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { openDatabase } from './factory';
import type { Database } from './port';
import { migrate, type Migration } from './migrate';

/** Migrations that fail if they ever run twice: no `if not exists`, and a row that must stay single. */
const migrations: Migration[] = [
  { version: 1, name: 'widgets', up: 'create table demo.widgets (id int primary key); create table demo.runs (n int);' },
  {
    version: 2,
    name: 'count the run',
    up: async (trx) => {
      await sql`insert into demo.runs (n) values (1)`.execute(trx);
      await sql`alter table demo.widgets add column name text not null default ''`.execute(trx);
    },
  },
];

async function appliedVersions(database: Database, schema = 'demo'): Promise<number[]> {
  const rows = await sql<{ version: number }>`select version from ${sql.table(`${schema}.schema_migrations`)} order by version`.execute(database.db);
  return rows.rows.map((r) => Number(r.version));
}

async function runCount(database: Database): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*)::int as n from demo.runs`.execute(database.db);
  return rows.rows[0]!.n;
}

interface Target {
  name: string;
  /** Two handles on one fresh database, as two replicas starting together would hold. */
  open(): Promise<{ first: Database; second: Database; close(): Promise<void> }>;
}

const targets: Target[] = [
  {
    name: 'PostgreSQL',
    async open() {
      const test: TestDatabase = await createTestDatabase();
      const second = await openDatabase({ url: test.url, poolSize: 2 });
      return {
        first: test.database,
        second,
        async close() {
          await second.close();
          await test.drop();
        },
      };
    },
  },
  {
    name: 'in-memory PGlite',
    async open() {
      const database = await openDatabase({ inMemory: true });
      return { first: database, second: database, close: () => database.close() };
    },
  },
];

describe.each(targets)('migrate on $name', (target) => {
  let handles: Awaited<ReturnType<Target['open']>>;

  beforeEach(async () => {
    handles = await target.open();
  });
  afterEach(async () => {
    await handles.close();
  });

  it('applies pending migrations in version order and does nothing the second time', async () => {
    const shuffled = [migrations[1]!, migrations[0]!];

    expect(await migrate(handles.first, 'demo', shuffled)).toEqual([1, 2]);
    expect(await migrate(handles.first, 'demo', shuffled)).toEqual([]);

    expect(await appliedVersions(handles.first)).toEqual([1, 2]);
    expect(await runCount(handles.first)).toBe(1);
  });

  it('applies only the migrations added since the last run', async () => {
    await migrate(handles.first, 'demo', [migrations[0]!]);

    expect(await migrate(handles.first, 'demo', migrations)).toEqual([2]);
    expect(await appliedVersions(handles.first)).toEqual([1, 2]);
  });

  it('applies each migration exactly once when two callers run it concurrently', async () => {
    const results = await Promise.all([
      migrate(handles.first, 'demo', migrations),
      migrate(handles.second, 'demo', migrations),
      migrate(handles.first, 'demo', migrations),
    ]);

    expect(results.flat().sort()).toEqual([1, 2]);
    expect(results.filter((r) => r.length === 0)).toHaveLength(2);
    expect(await appliedVersions(handles.first)).toEqual([1, 2]);
    expect(await runCount(handles.first)).toBe(1);
  });

  it('keeps concurrent migrations of different schemas apart', async () => {
    const other: Migration[] = [{ version: 1, name: 'gadgets', up: 'create table other.gadgets (id int)' }];

    await Promise.all([migrate(handles.first, 'demo', migrations), migrate(handles.second, 'other', other)]);

    expect(await appliedVersions(handles.first, 'demo')).toEqual([1, 2]);
    expect(await appliedVersions(handles.first, 'other')).toEqual([1]);
  });

  it('rolls back the whole run when one migration fails, so it can be retried', async () => {
    const broken: Migration[] = [migrations[0]!, { version: 2, name: 'broken', up: 'alter table demo.missing add column x int' }];

    await expect(migrate(handles.first, 'demo', broken)).rejects.toThrow(/missing/);

    const tables = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'demo'`.execute(
      handles.first.db,
    );
    expect(tables.rows[0]!.n).toBe(0);
    expect(await migrate(handles.first, 'demo', migrations)).toEqual([1, 2]);
  });
});

describe('migrate input checks', () => {
  const unused = {} as Database;

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(migrate(unused, 'demo; drop table x', migrations)).rejects.toThrow('Invalid schema name');
  });

  it('rejects two migrations with the same version', async () => {
    await expect(migrate(unused, 'demo', [migrations[0]!, { ...migrations[1]!, version: 1 }])).rejects.toThrow(
      'Duplicate migration version 1',
    );
  });
});
