import pg from 'pg';
import { cpuSeconds } from './proc';

/** CPU seconds used between two marks: by each of the system's processes, and by the database's backends together. */
export interface CpuUsage {
  processes: number[];
  postgres: number;
}

/**
 * Reads the CPU time of the system's Node processes and of every PostgreSQL backend connected to the bench database
 * (autovacuum workers of it included), from /proc, so the figures per record hold while other work shares the
 * machine, which wall-clock rates do not. Backends come and go: the meter looks for them every 200 ms and keeps the
 * last CPU time it saw of each, so a backend that exits loses at most its last 200 ms. Its own connection and those
 * listed in `exclude` (the bench's) are left out. Server-wide processes (WAL writer, checkpointer) are not counted.
 */
export class CpuMeter {
  private readonly seen = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
    private readonly pids: number[],
    private readonly exclude: Set<number>,
  ) {}

  static async start(url: string, pids: number[], exclude: number[] = []): Promise<CpuMeter> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const own = (await client.query('select pg_backend_pid() as pid, current_database() as db')).rows[0] as { pid: number; db: string };
    const meter = new CpuMeter(client, own.db, pids, new Set([own.pid, ...exclude]));
    await meter.poll();
    meter.timer = setInterval(() => void (meter.polling ??= meter.poll().finally(() => (meter.polling = undefined))), 200);
    return meter;
  }

  private async poll(): Promise<void> {
    const { rows } = await this.client.query('select pid from pg_stat_activity where datname = $1', [this.database]);
    for (const { pid } of rows as Array<{ pid: number }>) {
      if (this.exclude.has(pid)) continue;
      const seconds = cpuSeconds(pid);
      if (!Number.isNaN(seconds)) this.seen.set(pid, seconds);
    }
  }

  /** The CPU seconds used so far, to subtract from a later mark. */
  async mark(): Promise<Mark> {
    await this.polling;
    await this.poll();
    return { processes: this.pids.map(cpuSeconds), backends: new Map(this.seen) };
  }

  static between(from: Mark, to: Mark): CpuUsage {
    let postgres = 0;
    for (const [pid, seconds] of to.backends) postgres += seconds - (from.backends.get(pid) ?? 0);
    return { processes: to.processes.map((s, i) => s - from.processes[i]!), postgres };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await this.client.end();
  }
}

export interface Mark {
  processes: number[];
  backends: Map<number, number>;
}
