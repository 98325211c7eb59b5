/**
 * Starting the whole system (--target=all) on a fresh PostgreSQL database for a benchmark run, and tearing it down.
 *
 * A bench asks for other shapes with startSystem's `processes` (PROCESS_PER_SERVICE: the gateway and every service each a
 * process of its own on the one database, as a platform team runs them).
 *
 * For finding where time goes, not for reported figures:
 * - BENCH_TARGET: another --target, e.g. `auth,records,ingestion,gateway` to store without indexing; groups separated by
 *   `;` run as processes of their own, e.g. `search;records;auth,ingestion,gateway,open,mcp` (the scaled shape's
 *   process per service, on one machine); a bench's `processes` wins over it;
 * - BENCH_NODE_FLAGS: flags for the system's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`;
 * - BENCH_PG_LOG=1: PostgreSQL logs every statement of the bench database with its duration.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

export const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LAUNCHER = resolve(__dirname, '../../apps/trove/dist/main.js');

export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/** Every service other than the gateway, each with its `<NAME>_PORT` (the gateway listens on PORT). */
const SERVICES = ['auth', 'records', 'ingestion', 'search', 'open', 'billing', 'connector', 'mcp'] as const;

/**
 * One process per service (`--target=gateway`, `--target=auth`, …), as the scaled shape runs them: pass as startSystem's
 * `processes`. Every process gets the ports of all the others and the secrets they share.
 */
export const PROCESS_PER_SERVICE: readonly string[] = ['gateway', ...SERVICES];

export interface RunningSystem {
  /** The process running ingestion (or every service), whose memory a benchmark watches. */
  child: ChildProcess;
  /** Every process of the system, one per entry of `processes` (or `;`-separated group of BENCH_TARGET). */
  children: ChildProcess[];
  /** The gateway, e.g. http://127.0.0.1:PORT. */
  base: string;
  /** The fresh database every service (and the PostgreSQL search engine) uses; beside an embedded system, unused by it. */
  dbUrl: string;
  /** The embedded system's PGlite data folder; undefined on the server. */
  dataDir?: string;
  tenant: string;
  /** An admin-scoped key of the bench tenant. */
  key: string;
  stop(): Promise<void>;
}

/**
 * Creates a fresh database on the local server, starts `--target=all` on it in a child process (ENV=development),
 * waits until the gateway is ready and creates an admin key for a new tenant (development bootstrap via X-Tenant-Id).
 * `keepDatabase` leaves the database in place after stop(), for looking at query plans afterwards. `embedded` runs the
 * system on PGlite in a fresh data folder instead. `processes` lists the `--target` of each process to start, in this
 * order (e.g. PROCESS_PER_SERVICE); without it, BENCH_TARGET's `;`-separated groups, else one process of `all`.
 */
export async function startSystem(
  extraEnv: NodeJS.ProcessEnv = {},
  keepDatabase = false,
  embedded = false,
  processes?: readonly string[],
): Promise<RunningSystem> {
  const dbName = `trove_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  if (process.env.BENCH_PG_LOG) await admin.query(`alter database ${dbName} set log_min_duration_statement = 0`);
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  const children: ChildProcess[] = [];
  const dataDir = embedded ? mkdtempSync(join(tmpdir(), 'trove-bench-')) : undefined;
  const stop = async () => {
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of running) c.kill('SIGTERM');
    await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (keepDatabase) console.error(`kept the database ${dbUrl.toString()}`);
    else await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  };
  try {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ENV: 'development',
      LOG_LEVEL: 'warn',
      // Embedded: the system on PGlite in a fresh data folder, as the README's first command starts it; the fresh
      // server database then holds only what a bench puts beside the system (its floor).
      ...(dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: dbUrl.toString() }),
      PORT: String(port),
      // The processes of BENCH_TARGET's groups verify each other's internal tokens, so they share one secret.
      INTERNAL_TOKEN_SECRET: process.env.INTERNAL_TOKEN_SECRET ?? randomBytes(32).toString('hex'),
      // Portal tokens signed by auth in one group are verified by the gateway in another.
      JWT_SECRET: process.env.JWT_SECRET ?? randomBytes(32).toString('hex'),
      ...extraEnv,
    };
    if (embedded) delete env.DATABASE_URL;
    // Every process knows where each of the others listens.
    for (const s of SERVICES) env[`${s.toUpperCase()}_PORT`] = String(await freePort());
    const groups = processes ? [...processes] : (process.env.BENCH_TARGET ?? 'all').split(';');
    for (const group of groups) {
      children.push(spawn(process.execPath, [...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), LAUNCHER, `--target=${group}`], { env, stdio: ['ignore', 'inherit', 'inherit'] }));
      // Each process runs its services' migrations; one after the other, they never wait on each other's locks.
      if (groups.length > 1) await ready(`http://127.0.0.1:${env[`${group.split(',')[0]!.toUpperCase()}_PORT`] ?? port}/health`, children);
    }
    const base = `http://127.0.0.1:${port}`;
    // The gateway is ready once search is; a system without search (search elsewhere) waits for the gateway alone.
    const searching = groups.some((g) => /\b(all|search)\b/.test(g));
    await ready(`${base}/health${searching ? '/ready' : ''}`, children);
    const tenant = randomUUID();
    const keyRes = await fetch(`${base}/api/v1/auth/keys`, {
      method: 'POST',
      headers: { 'x-tenant-id': tenant, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', scopes: ['admin'] }),
    });
    if (!keyRes.ok) throw new Error(`key creation answered ${keyRes.status}: ${await keyRes.text()}`);
    const key = ((await keyRes.json()) as { key: string }).key;
    const child = children[groups.findIndex((g) => /\b(all|ingestion)\b/.test(g))] ?? children[0]!;
    return { child, children, base, dbUrl: dbUrl.toString(), dataDir, tenant, key, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits until `url` answers 2xx, failing if one of the processes exits first. */
async function ready(url: string, children: ChildProcess[]): Promise<void> {
  for (let i = 0; ; i++) {
    if (i > 600) throw new Error(`${url} did not become ready`);
    const exited = children.find((c) => c.exitCode !== null);
    if (exited) throw new Error(`a system process exited with ${exited.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
