import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { lockFolder, type FolderLock } from './folder-lock';
import { PGlitePool } from './pglite-pool';
import type { Database } from './port';

export interface PGliteOptions {
  /** The data folder; the database lives in its `pglite` folder (default ./data). */
  dataDir?: string;
  /** Use an in-memory PGlite (tests). */
  inMemory?: boolean;
}

// The contrib entry point declares ESM types only, which a CommonJS file may not import; at run time require()
// resolves its CommonJS build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/** The embedded adapter: PGlite, one connection shared by the process, in the data folder it locks. */
export async function openPGlite(opts: PGliteOptions = {}): Promise<Database> {
  let dataDir: string | undefined;
  let lock: FolderLock | undefined;
  if (!opts.inMemory) {
    const folder = resolve(opts.dataDir ?? './data');
    dataDir = join(folder, 'pglite');
    mkdirSync(dataDir, { recursive: true });
    // Nothing in PGlite stops a second process opening the folder; the lock refuses it before it writes anything.
    lock = lockFolder(join(realpathSync(folder), 'pglite.lock'));
  }
  let pglite: PGlite;
  try {
    // pg_trgm ships with PostgreSQL servers but PGlite only has the contrib extensions it is given; the search engine's
    // typo-tolerant fallback needs it. int8 is read as a number, as postgres.ts configures pg.
    pglite = await PGlite.create(dataDir, { extensions: { pg_trgm }, parsers: { 20: (v: string) => Number(v) } });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const pool = new PGlitePool(pglite);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'pglite',
    db,
    async listen(channel, onNotify) {
      const unsubscribe = await pool.exclusive(() => pglite.listen(channel, onNotify));
      return () => pool.exclusive(() => unsubscribe());
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      lock?.release();
    },
  };
}
