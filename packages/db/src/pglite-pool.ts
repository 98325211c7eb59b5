import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { CopyRows } from './copy';
import type { PGliteThread } from './pglite-thread';

const COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'SELECT']);

/** Turns of the connection that no request asked for (indexing, the event log, schedules) share this key. */
const BACKGROUND = 'background';

/** How fast a key's use of the connection is forgotten: it halves every HALF_LIFE_MS. */
const HALF_LIFE_MS = 1_000;

/** A key's recent use of the connection, in milliseconds held, decayed over time. */
interface Use {
  ms: number;
  at: number;
}

/**
 * PGlite is one connection. Kysely asks a pool for a client per query or transaction, so this pool hands out that
 * one connection to one borrower at a time: a transaction keeps it until it commits, and nothing interleaves.
 *
 * Borrowers wait by key (the tenant on whose behalf they query, from `shareKey`; work no request asked for shares one
 * key), and the connection goes next to the waiting key that held it least in the last seconds, oldest borrower first
 * within a key. A tenant writing a large upload chunk after chunk then waits behind a tenant with one small request,
 * not the other way round: on the embedded default this single connection is the database every tenant shares.
 */
export class PGlitePool implements PostgresPool {
  private readonly waiting = new Map<string, Array<() => void>>();
  private readonly use = new Map<string, Use>();
  private holder: { key: string; since: number } | undefined;

  constructor(
    private readonly pg: PGliteThread,
    private readonly shareKey: () => string | undefined = () => undefined,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    await this.acquire();
    let released = false;
    const client = {
      query: async (sql: string, parameters: ReadonlyArray<unknown>) => {
        const copy = parameters.length === 1 && parameters[0] instanceof CopyRows ? parameters[0] : undefined;
        if (copy) {
          // PGlite reads COPY data from the blob it is handed, under this device name.
          const result = await this.pg.copy(copy.statement(`'/dev/blob'`), copy.data);
          return { command: 'INSERT', rowCount: result.affectedRows ?? copy.rowCount, rows: [] };
        }
        // Parameterless SQL may hold several statements (migrations); only the simple protocol runs those.
        const result = parameters.length === 0 && /;\s*\S/.test(sql) ? await this.pg.exec(sql) : await this.pg.query(sql, parameters);
        const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT';
        return {
          command: (COMMANDS.has(verb) ? verb : 'SELECT') as 'SELECT',
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release: () => {
        if (released) return;
        released = true;
        this.release();
      },
    };
    return client as unknown as PostgresPoolClient;
  }

  /**
   * Runs work that talks to PGlite directly (LISTEN, UNLISTEN) while no borrower holds the connection; otherwise it
   * would run inside whatever transaction is open, and be undone if that transaction rolls back.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    const key = this.shareKey() ?? BACKGROUND;
    if (!this.holder) {
      this.holder = { key, since: performance.now() };
      return;
    }
    // release() hands the connection over: it makes this borrower the holder before resolving.
    await new Promise<void>((resolve) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push(resolve);
      else this.waiting.set(key, [resolve]);
    });
  }

  private release(): void {
    const now = performance.now();
    if (this.holder) this.charge(this.holder.key, now - this.holder.since, now);
    this.holder = undefined;
    let next: string | undefined;
    for (const key of this.waiting.keys()) {
      if (next === undefined || this.recentUse(key, now) < this.recentUse(next, now)) next = key;
    }
    if (next === undefined) return;
    const queue = this.waiting.get(next)!;
    const resolve = queue.shift()!;
    if (queue.length === 0) this.waiting.delete(next);
    // Held from now: nobody else may take it between this turn and the borrower's continuation.
    this.holder = { key: next, since: now };
    resolve();
  }

  private recentUse(key: string, now: number): number {
    const use = this.use.get(key);
    return use ? use.ms * 0.5 ** ((now - use.at) / HALF_LIFE_MS) : 0;
  }

  private charge(key: string, ms: number, now: number): void {
    const decayed = this.recentUse(key, now) + ms;
    // A key that has not used the connection for a while is forgotten, so the map stays as small as the active keys.
    for (const [k, u] of this.use) if (now - u.at > 30 * HALF_LIFE_MS) this.use.delete(k);
    this.use.set(key, { ms: decayed, at: now });
  }

  async end(): Promise<void> {
    // The PGlite instance is closed by its owner.
  }
}
