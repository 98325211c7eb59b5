import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { lockFolder, type FolderLock } from './folder-lock';
import { PGlitePool } from './pglite-pool';
import { PGliteThread } from './pglite-thread';
import type { Database } from './port';

export interface PGliteOptions {
  /** The data folder; the database lives in its `pglite` folder (default ./data). */
  dataDir?: string;
  /** Use an in-memory PGlite (tests). */
  inMemory?: boolean;
  /** On whose behalf the current code queries; see OpenDatabaseOptions. */
  shareKey?: () => string | undefined;
}

/**
 * The embedded adapter: PGlite, one connection shared by the process, in the data folder it locks. PGlite runs in a
 * thread of its own (PGliteThread), so the database has a core while the services use the main thread.
 */
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
  let pglite: PGliteThread;
  try {
    pglite = await PGliteThread.start(dataDir);
  } catch (err) {
    lock?.release();
    throw err;
  }
  const pool = new PGlitePool(pglite, opts.shareKey);
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
      await pglite.close();
      lock?.release();
    },
  };
}
