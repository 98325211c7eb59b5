import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import pg from 'pg';
import { cpuSeconds } from './proc';

/**
 * CPU seconds used between two marks: by each of the system's processes, by the database's backends together, and by
 * the backends serving each process (the rest, autovacuum's and those of processes that are not the system's, is
 * `postgres` less their sum).
 */
export interface CpuUsage {
  processes: number[];
  postgres: number;
  postgresFor: number[];
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
  /** Which of `pids` each backend serves (its index), or -1: found once, from the backend's client port. */
  private readonly owners = new Map<number, number>();
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
    const { rows } = await this.client.query('select pid, client_port from pg_stat_activity where datname = $1', [this.database]);
    let ports: Map<number, number> | undefined;
    for (const { pid, client_port } of rows as Array<{ pid: number; client_port: number | null }>) {
      if (this.exclude.has(pid)) continue;
      const seconds = cpuSeconds(pid);
      if (Number.isNaN(seconds)) continue;
      this.seen.set(pid, seconds);
      if (!this.owners.has(pid)) {
        ports ??= portsOf(this.pids);
        this.owners.set(pid, client_port === null ? -1 : (ports.get(client_port) ?? -1));
      }
    }
  }

  /** The CPU seconds used so far, to subtract from a later mark. */
  async mark(): Promise<Mark> {
    await this.polling;
    await this.poll();
    return { processes: this.pids.map(cpuSeconds), backends: new Map(this.seen), owners: new Map(this.owners) };
  }

  static between(from: Mark, to: Mark): CpuUsage {
    let postgres = 0;
    const postgresFor = to.processes.map(() => 0);
    for (const [pid, seconds] of to.backends) {
      const used = seconds - (from.backends.get(pid) ?? 0);
      postgres += used;
      const owner = to.owners.get(pid) ?? -1;
      if (owner >= 0) postgresFor[owner]! += used;
    }
    return { processes: to.processes.map((s, i) => s - from.processes[i]!), postgres, postgresFor };
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
  owners: Map<number, number>;
}

/** The local TCP ports of each process's sockets (Linux: its socket inodes in /proc/<pid>/fd, found in /proc/net/tcp*). */
function portsOf(pids: number[]): Map<number, number> {
  const inodes = new Map<string, number>();
  pids.forEach((pid, i) => {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.set(m[1]!, i);
      } catch {
        // closed meanwhile
      }
    }
  });
  const ports = new Map<number, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[] = [];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const owner = inodes.get(fields[9] ?? '');
      if (owner !== undefined) ports.set(parseInt(fields[1]!.split(':')[1]!, 16), owner);
    }
  }
  return ports;
}
