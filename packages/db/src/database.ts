import { mkdirSync, realpathSync } from 'node:fs';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { join, resolve } from 'node:path';
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CopyRows } from './copy';
import { lockFolder, type FolderLock } from './folder-lock';
import { PGlitePool } from './pglite-pool';

// int8 (counts, offsets) as numbers, as PGlite is configured below; every value Trove stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** A handle on one PostgreSQL database, shared by the services that use it. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  /** Untyped at this level; each service declares its own table types over its own schema. */
  readonly db: Kysely<any>;
  /**
   * Subscribes to NOTIFY on a channel; returns the unsubscribe function. On PGlite it waits for the one connection,
   * so never call it while holding a transaction.
   */
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

const LISTEN_RECONNECT_MS = 1_000;

// The contrib entry point declares ESM types only, which a CommonJS file may not import; at run time require()
// resolves its CommonJS build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/**
 * One dedicated connection holds every LISTEN of the process. When it drops it reconnects and listens again on every
 * channel, so subscribers keep their wake-ups across a database restart instead of silently falling back to polling.
 */
class PostgresListener {
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private current?: { client: pg.Client; channels: Set<string> };
  private connecting?: Promise<{ client: pg.Client; channels: Set<string> }>;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly onError?: (err: Error) => void,
  ) {}

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('Database is closed');
    const set = this.listeners.get(channel) ?? new Set();
    this.listeners.set(channel, set);
    set.add(onNotify);
    try {
      const conn = await this.connect();
      if (!conn.channels.has(channel)) {
        await conn.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        conn.channels.add(channel);
      }
    } catch (err) {
      set.delete(onNotify);
      throw err;
    }
    return async () => {
      set.delete(onNotify);
    };
  }

  private connect(): Promise<{ client: pg.Client; channels: Set<string> }> {
    if (this.current) return Promise.resolve(this.current);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<{ client: pg.Client; channels: Set<string> }> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'trove-listen' });
    client.on('notification', (msg) => {
      for (const fn of this.listeners.get(msg.channel) ?? []) fn(msg.payload ?? '');
    });
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      if (err) this.onError?.(err);
      if (this.current?.client === client) this.current = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', drop);
    client.on('end', () => drop());
    try {
      await client.connect();
      const channels = new Set<string>();
      for (const channel of this.listeners.keys()) {
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        channels.add(channel);
      }
      if (this.closed) throw new Error('Database is closed');
      this.current = { client, channels };
      return this.current;
    } catch (err) {
      dropped = true;
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.listeners.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((err: Error) => {
        this.onError?.(err);
        this.scheduleReconnect();
      });
    }, LISTEN_RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.connecting?.catch(() => undefined);
    const client = this.current?.client;
    this.current = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}

/** Runs a COPY FROM STDIN on a pg client with the rows' text as its data. */
async function copyOnClient(client: pg.PoolClient, copy: CopyRows): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(copy.statement('stdin')));
  await pipeline(Readable.from([copy.data]), stream);
  return { command: 'INSERT', rowCount: stream.rowCount, rows: [] };
}

/**
 * A pg pool whose clients run a query whose one parameter is CopyRows (copyInto) as a COPY. Each pg client keeps one
 * wrapper, since Kysely keeps its connection object per client.
 */
function copyingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (!wrapped) {
        wrapped = {
          query: ((text: unknown, parameters?: readonly unknown[]) =>
            parameters?.length === 1 && parameters[0] instanceof CopyRows
              ? copyOnClient(client, parameters[0])
              : client.query(text as string, parameters as unknown[])) as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}

async function openPostgres(url: string, opts: OpenDatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) => opts.onError?.(err));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: copyingPool(pool) }) });
  const listener = new PostgresListener(url, opts.onError);
  return {
    kind: 'postgres',
    db,
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}

async function openPGlite(opts: OpenDatabaseOptions): Promise<Database> {
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
    // typo-tolerant fallback needs it.
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

/** Opens a PostgreSQL server when a URL is given, else PGlite in the data folder. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  return opts.url ? openPostgres(opts.url, opts) : openPGlite(opts);
}
