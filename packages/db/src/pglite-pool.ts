import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { CopyRows } from './copy';
import type { PGliteThread } from './pglite-thread';

const COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'SELECT']);

/**
 * PGlite is one connection. Kysely asks a pool for a client per query or transaction, so this pool hands out that
 * one connection to one borrower at a time: a transaction keeps it until it commits, and nothing interleaves.
 */
export class PGlitePool implements PostgresPool {
  private queue: Array<() => void> = [];
  private busy = false;

  constructor(private readonly pg: PGliteThread) {}

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
    if (this.busy) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.busy = true;
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }

  async end(): Promise<void> {
    // The PGlite instance is closed by its owner.
  }
}
