import { openPGlite } from './pglite';
import type { Database } from './port';
import { openPostgres } from './postgres';

export interface OpenDatabaseOptions {
  /** A PostgreSQL URL; without one, PGlite stores the database in dataDir. */
  url?: string;
  dataDir?: string;
  poolSize?: number;
  /** PostgreSQL server: run statements marked `prepared` by name (default true; see prepared.ts). */
  preparedStatements?: boolean;
  /** Use an in-memory PGlite (tests). */
  inMemory?: boolean;
  onError?: (err: Error) => void;
  /**
   * PGlite: on whose behalf the current code queries (a tenant), so that its one connection is shared fairly between
   * them (PGlitePool). Unused on a PostgreSQL server, whose pool has a connection per query.
   */
  shareKey?: () => string | undefined;
}

/** Chooses the adapter once from configuration: a PostgreSQL server when a URL is given, else PGlite in the data folder. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts.url, opts) : openPGlite(opts);
}
