import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CopyRows } from './copy';
import type { Database } from './port';
import { PostgresListener } from './postgres-listener';
import { preparedName } from './prepared';

// int8 (counts, offsets) as numbers, as PGlite is configured in pglite.ts; every value Trove stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface PostgresOptions {
  /** Most connections the pool opens (the LISTEN connection is one more). */
  poolSize?: number;
  /**
   * Whether statements marked `prepared` run by name (default true). Off for a connection pooler that cannot keep
   * named statements per client (PgBouncer in transaction mode before 1.21): then every statement runs unnamed, and no
   * startup option is sent.
   */
  preparedStatements?: boolean;
  /** Every statement on the pool is cancelled after this long (milliseconds). */
  statementTimeoutMs?: number;
  /** Where an idle connection's error or a dropped LISTEN connection is reported. */
  onError?: (err: Error) => void;
}

/** Runs a COPY FROM STDIN on a pg client with the rows' text as its data. */
async function copyOnClient(client: pg.PoolClient, copy: CopyRows): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(copy.statement('stdin')));
  await pipeline(Readable.from([copy.data]), stream);
  return { command: 'INSERT', rowCount: stream.rowCount, rows: [] };
}

/** Runs a statement, by name when it is marked as prepared (prepared.ts) and `prepare` allows. */
function run(client: pg.PoolClient, text: string, values: unknown[] | undefined, prepare: boolean): Promise<pg.QueryResult> {
  const name = prepare ? preparedName(text) : undefined;
  return name === undefined ? client.query(text, values) : client.query({ name, text, values });
}

/**
 * A pg pool whose clients run a query whose one parameter is CopyRows (copyInto) as a COPY. Each pg client keeps one
 * wrapper, since Kysely keeps its connection object per client.
 */
function copyingPool(pool: pg.Pool, prepare: boolean): PostgresPool {
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
              : run(client, text as string, parameters as unknown[], prepare)) as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/** The PostgreSQL server adapter: a pool of connections to `url`, and one more connection for LISTEN. */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  // Every plan is made for the values it runs with, prepared statements' too (prepared.ts): a plan made once for any
  // value would pick its index from estimates for an unknown tenant, the wrong one for a large tenant.
  const prepare = opts.preparedStatements ?? true;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    ...(prepare ? { options: '-c plan_cache_mode=force_custom_plan' } : {}),
  });
  pool.on('error', (err) => opts.onError?.(err));
  const timeout = opts.statementTimeoutMs;
  if (timeout !== undefined) {
    // Set on each new connection before anything else runs on it (a client runs its queries in order); a SET, not a
    // startup option, so a pooler that refuses startup options still takes it.
    pool.on('connect', (client) => {
      client.query(`set statement_timeout = ${Math.max(1, Math.round(timeout))}`).catch((err: Error) => opts.onError?.(err));
    });
  }
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: copyingPool(pool, prepare) }) });
  const listener = new PostgresListener(url, opts.onError);
  return {
    kind: 'postgres',
    db,
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    async ping() {
      await sql`select 1`.execute(db);
    },
    bounded: (statementTimeoutMs) => openPostgres(url, { ...opts, statementTimeoutMs }),
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}
