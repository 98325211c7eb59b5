import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGlitePool } from './pglite-pool';

// int8 (counts, offsets) as numbers, as PGlite is configured below; every value Trove stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** A handle on one PostgreSQL database, shared by the services that use it. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /** Untyped at this level; each service declares its own table types over its own schema. */
  readonly db: Kysely<any>;
  /** Subscribes to NOTIFY on a channel; returns the unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Resolves when the database answers a query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL URL; without one, PGlite stores the database in dataDir. */
  url?: string;
  dataDir?: string;
  poolSize?: number;
  /** Use an in-memory PGlite (tests). */
  inMemory?: boolean;
  onError?: (err: Error) => void;
}

async function openPostgres(url: string, opts: OpenDatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) => opts.onError?.(err));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let listenClient: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;

  const connectListener = async (): Promise<pg.Client> => {
    if (listenClient) return listenClient;
    connecting ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      client.on('notification', (msg) => {
        for (const fn of listeners.get(msg.channel) ?? []) fn(msg.payload ?? '');
      });
      client.on('error', (err) => {
        opts.onError?.(err);
        listenClient = undefined;
        connecting = undefined;
      });
      await client.connect();
      listenClient = client;
      return client;
    })();
    return connecting;
  };

  return {
    kind: 'postgres',
    db,
    async listen(channel, onNotify) {
      const client = await connectListener();
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onNotify);
      return async () => {
        set!.delete(onNotify);
      };
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (listenClient) await listenClient.end().catch(() => undefined);
      await db.destroy();
    },
  };
}

async function openPGlite(opts: OpenDatabaseOptions): Promise<Database> {
  let dataDir: string | undefined;
  if (!opts.inMemory) {
    dataDir = resolve(opts.dataDir ?? './data', 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create(dataDir, { parsers: { 20: (v: string) => Number(v) } });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
  return {
    kind: 'pglite',
    db,
    async listen(channel, onNotify) {
      const unsubscribe = await pglite.listen(channel, onNotify);
      return async () => unsubscribe();
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Opens a PostgreSQL server when a URL is given, else PGlite in the data folder. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts.url, opts) : openPGlite(opts);
}
