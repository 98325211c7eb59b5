import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '@trove/testing';
import { checkAnswersOf } from './conformance';

/** The built launcher, as the README's commands run it. */
export const LAUNCHER = resolve(__dirname, '../../apps/trove/dist/main.js');

/** The secrets production requires, set to values it accepts (none a placeholder). */
export const PRODUCTION = {
  ENV: 'production',
  INTERNAL_TOKEN_SECRET: 'e2e-internal-token-secret-of-at-least-32-chars',
  API_KEY_SALT: 'e2e-api-key-salt-value',
  JWT_SECRET: 'e2e-portal-token-secret-of-at-least-32-chars',
  CONNECTOR_ENCRYPTION_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
};

/**
 * `count` distinct ports free at the moment of asking: each is held open until all are found, so no two of one system
 * are the same (a port closed and asked for again may be handed out again).
 */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((res, rej) => {
          const srv = createServer();
          srv.once('error', rej);
          srv.listen(0, '127.0.0.1', () => res(srv));
        }),
    ),
  );
  const ports = servers.map((srv) => (srv.address() as { port: number }).port);
  await Promise.all(servers.map((srv) => new Promise((res) => srv.close(res))));
  return ports;
}

/** Sets PORT and each service's `<NAME>_PORT` in `env` to distinct free ports. */
async function assignPorts(env: Record<string, string>, services: readonly string[]): Promise<void> {
  const ports = await freePorts(1 + services.length);
  env.PORT = String(ports[0]);
  services.forEach((s, i) => (env[`${s.toUpperCase()}_PORT`] = String(ports[i + 1])));
}

export interface Trove {
  baseUrl: string;
  dataDir: string;
  /**
   * Where each service other than the gateway listens, by name (`{ auth: 40123, … }`): only in a process running some
   * services (`target`); under `--target=all` only the gateway listens and this is empty.
   */
  servicePorts: Record<string, number>;
  /** The system's process id (for reading its memory, or killing it as a crash would). */
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
  /** Sends the process a signal (SIGKILL: it dies as in a crash, releasing nothing) and resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  env?: Record<string, string>;
  /** `--target` (default `all`); a process running only some services gets a free port for each and the shared secrets. */
  target?: string;
}

/** How often a start is tried again when a port picked for it was taken before the system bound it. */
const START_ATTEMPTS = 3;

class PortTaken extends Error {}

/**
 * `start()`, tried again (on other ports: each try picks its own) when a port found free was taken before a process
 * bound it (by another test's process, or as the local port of an outgoing connection).
 */
async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

/** The error of a start that ended before it was ready: PortTaken when a port was in use. */
function startFailed(message: string, output: string): Error {
  return output.includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
}

/**
 * Starts the whole system as the README's first command does (`--target=all`, embedded PGlite and event log, nothing
 * set but PORT and DATA_DIR), or the services of `target`, on free ports, and resolves once the gateway (or, without
 * one, every service) reports ready. A port found free can be taken before the system binds
 * it (by another test's process, or as the local port of an outgoing connection); such a start is tried again on
 * other ports.
 */
export async function startTrove(opts: StartOptions = {}): Promise<Trove> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'trove-e2e-'));
  return onFreePorts(() => startOnce(dataDir, opts));
}

async function startOnce(dataDir: string, opts: StartOptions): Promise<Trove> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ENV: 'development',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
  };
  delete env.DATABASE_URL;
  delete env.KAFKA_BROKERS;
  const target = opts.target ?? 'all';
  const services = target === 'all' ? [] : target.split(',').filter((s) => s !== 'gateway');
  await assignPorts(env, services);
  if (target !== 'all') {
    // The processes of a system running apart share these; the launcher refuses to start without them.
    env.INTERNAL_TOKEN_SECRET ??= randomBytes(32).toString('hex');
    env.JWT_SECRET ??= randomBytes(32).toString('hex');
  }
  Object.assign(env, opts.env ?? {});

  const child: ChildProcess = spawn(process.execPath, [LAUNCHER, `--target=${target}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));

  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  // Modules start one after the other: a process is up once every port it opens answers ready.
  const readyUrls = [
    ...(target === 'all' || target.split(',').includes('gateway') ? [baseUrl] : []),
    ...services.map((s) => `http://127.0.0.1:${env[`${s.toUpperCase()}_PORT`]}`),
  ];
  const deadline = Date.now() + 60_000;
  let ready = false;
  while (!ready && Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw startFailed(`Trove exited with ${child.exitCode} during start:\n${output}`, output);
    }
    try {
      const statuses = await Promise.all(
        readyUrls.map(async (url) => {
          const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      ready = statuses.every((status) => status === 200);
    } catch {
      // not listening yet
    }
    if (!ready) await new Promise((r) => setTimeout(r, 100));
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`Trove did not become ready in 60 s:\n${output}`);
  }

  checkAnswersOf(baseUrl);
  return {
    baseUrl,
    dataDir,
    servicePorts: Object.fromEntries(services.map((s) => [s, Number(env[`${s.toUpperCase()}_PORT`])])),
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Every service of the system, each its own process in the shape started by startApart. */
export const SERVICES = ['auth', 'records', 'ingestion', 'search', 'open', 'billing', 'connector', 'mcp'] as const;

export interface ApartSystem {
  baseUrl: string;
  /** Where each service listens, by name. */
  servicePorts: Record<string, number>;
  /** Everything the processes wrote so far, each line prefixed with its service. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The shape with a process per service, as a platform team runs it: the gateway and each service started alone
 * (`--target=<service>`) on ports of their own, sharing one PostgreSQL database (`databaseUrl`; its schemas per
 * service, the embedded event log in it, the PostgreSQL search engine), the machine's Redis and the secrets the
 * processes of one system share. Resolves once every process answers ready.
 */
export async function startApart(opts: { databaseUrl: string; env?: Record<string, string> }): Promise<ApartSystem> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: opts.databaseUrl,
    // Every secret set, as production requires of a system running apart (development keeps X-Tenant-Id, the
    // suite's way to a tenant's first key).
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('hex'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    API_KEY_SALT: randomBytes(16).toString('hex'),
    CONNECTOR_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // The cache and counters in the machine's Redis, as several processes serving search need; each system under a
    // prefix of its own, so that test files running at once never read each other's cached answers or counters.
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `e2e-${randomBytes(6).toString('hex')}:`,
  };
  delete env.KAFKA_BROKERS;
  await assignPorts(env, SERVICES);
  Object.assign(env, opts.env ?? {});

  let output = '';
  const children = ['gateway', ...SERVICES].map((target) => {
    const child = spawn(process.execPath, [LAUNCHER, `--target=${target}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((res) => child.once('exit', () => res()));
    const log = (d: Buffer) => (output += d.toString().replace(/^(?=.)/gm, `[${target}] `));
    child.stdout!.on('data', log);
    child.stderr!.on('data', log);
    return { target, child, exited };
  });
  const stop = async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => children.forEach(({ child }) => child.exitCode === null && child.kill('SIGKILL')), 15_000);
    await Promise.all(children.map((c) => c.exited));
    clearTimeout(timer);
  };

  const urls = [`http://127.0.0.1:${env.PORT}`, ...SERVICES.map((s) => `http://127.0.0.1:${env[`${s.toUpperCase()}_PORT`]}`)];
  const deadline = Date.now() + 90_000;
  for (;;) {
    const dead = children.find((c) => c.child.exitCode !== null);
    if (dead) {
      await stop();
      throw startFailed(`${dead.target} exited with ${dead.child.exitCode} during start:\n${output}`, output);
    }
    const statuses = await Promise.all(
      urls.map(async (url) => {
        try {
          const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
          await res.arrayBuffer();
          return res.status;
        } catch {
          return 0;
        }
      }),
    );
    if (statuses.every((status) => status === 200)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the processes did not all become ready in 90 s (${statuses.join(', ')}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  checkAnswersOf(urls[0]!);
  return {
    baseUrl: urls[0]!,
    servicePorts: Object.fromEntries(SERVICES.map((s) => [s, Number(env[`${s.toUpperCase()}_PORT`])])),
    output: () => output,
    stop,
  };
}

/** The TCP ports process `pid` listens on, read from the kernel's tables (Linux; no traffic sent). */
export function listeningPorts(pid: number): number[] {
  const sockets = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (link.startsWith('socket:[')) sockets.add(link.slice(8, -1));
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address, state (0A: listening), inode
      if (fields[3] === '0A' && sockets.has(fields[9]!)) ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * The services of `startApart`, on a fresh PostgreSQL database of the test server that stop() drops after them.
 */
async function startApartOnTestDatabase(env?: Record<string, string>): Promise<ApartSystem> {
  const database = await createTestDatabase();
  try {
    const system = await onFreePorts(() => startApart({ databaseUrl: database.url, env }));
    return {
      ...system,
      async stop() {
        await system.stop();
        await database.drop();
      },
    };
  } catch (err) {
    await database.drop();
    throw err;
  }
}

/**
 * The shape the end-to-end suite runs against, chosen by TROVE_E2E_TOPOLOGY: `one-process` (the default: the whole
 * system in one process on the embedded database, as the README's first command starts it) or `apart` (every service
 * its own process on a PostgreSQL server, Redis for the cache and counters, every secret set: startApart). `.ci/run`
 * runs the suite in both.
 */
export const TOPOLOGY: 'one-process' | 'apart' = process.env.TROVE_E2E_TOPOLOGY === 'apart' ? 'apart' : 'one-process';

export interface UseTroveOptions extends StartOptions {
  /**
   * `true`: a process per service (startApart) on a fresh PostgreSQL test database, whatever TOPOLOGY says (`env`
   * applies, `dataDir` and `target` do not); `false`: one process (startTrove), for what only a single process has
   * (its process id, the ports it opens, its memory). Unset: as TOPOLOGY says, unless `target` or `dataDir` is set.
   */
  apart?: boolean;
}

/** Starts the system of a test file in the suite's topology (TOPOLOGY; `apart` in the options overrides it). */
export async function startSuiteSystem(options: UseTroveOptions = {}): Promise<Trove | ApartSystem> {
  const { apart, ...opts } = options;
  const runApart = apart ?? (TOPOLOGY === 'apart' && opts.target === undefined && opts.dataDir === undefined);
  return runApart ? startApartOnTestDatabase(opts.env) : startTrove(opts);
}

/** A system started for a test file or a describe block by useTrove; its fields answer once its beforeAll has run. */
export interface TroveHandle {
  /** The gateway's base URL. */
  readonly baseUrl: string;
  /** Where each service listens, when they listen apart (see Trove and ApartSystem). */
  readonly servicePorts: Record<string, number>;
  /** The process id of a one-process system (startTrove). */
  readonly pid: number;
  /** Everything the system wrote so far. */
  output(): string;
  /** A client of the gateway (`client(baseUrl)`). */
  api: Api;
  /** A key of a tenant with these scopes (createKey through this system's gateway). */
  keyFor(tenant: string | { adminKey: string }, scopes: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Registers the start of a whole system before the tests of the enclosing block (beforeAll) and its stop after them
 * (afterAll), and answers a handle on it. `options` may be a function, for settings known only once earlier hooks
 * have run (a stand-in's URL).
 */
export function useTrove(options: UseTroveOptions | (() => UseTroveOptions) = {}): TroveHandle {
  let system: Trove | ApartSystem | undefined;
  let stopping: Promise<void> | undefined;
  const running = () => {
    if (!system) throw new Error('useTrove: the system is not running (its beforeAll has not run, or failed)');
    return system;
  };
  beforeAll(async () => {
    system = await startSuiteSystem(typeof options === 'function' ? options() : options);
  });
  afterAll(() => handle.stop());
  const handle: TroveHandle = {
    get baseUrl() {
      return running().baseUrl;
    },
    get servicePorts() {
      return running().servicePorts;
    },
    get pid() {
      const trove = running();
      if (!('pid' in trove)) throw new Error('useTrove: a system of a process per service has no one process id');
      return trove.pid;
    },
    output: () => running().output(),
    api: (method, path, opts) => client(running().baseUrl)(method, path, opts),
    keyFor: (tenant, scopes) => createKey(handle.api, tenant, scopes),
    stop: () => (stopping ??= system ? system.stop() : Promise.resolve()),
  };
  return handle;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/**
 * A plain HTTP client for the gateway; JSON in and out unless a raw body is given. Like every `fetch` of a started
 * gateway, each answer is checked against the API reference (support/conformance.ts).
 */
export function client(baseUrl: string, defaults: Record<string, string> = {}) {
  return async function call<T = any>(
    method: string,
    path: string,
    opts: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...defaults, ...(opts.headers ?? {}) };
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] ??= 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body }).catch(async (err: unknown) => {
      // A test that blocks its event loop (spawnSync of the CLI) cannot see the server close an idle kept-alive
      // connection, and the next request goes out on it. A read is sent again once; a write never is.
      if (!['GET', 'HEAD'].includes(method) || !String((err as { cause?: unknown }).cause).includes('other side closed')) throw err;
      return fetch(`${baseUrl}${path}`, { method, headers });
    });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}

/** A client of the gateway, as `client(baseUrl)` answers it. */
export type Api = ReturnType<typeof client>;

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const devTenant = (tenantId: string) => ({ 'x-tenant-id': tenantId });

/**
 * The key bootstrap: creates an API key with `scopes` (POST /api/v1/auth/keys) and answers its value. For a tenant
 * id, through the development X-Tenant-Id header (a tenant's first key); for `{ adminKey }`, through the key API as
 * that key's tenant's admin. Fails unless the gateway answers 201.
 */
export async function createKey(api: Api, tenant: string | { adminKey: string }, scopes: string[]): Promise<string> {
  const headers = typeof tenant === 'string' ? devTenant(tenant) : bearer(tenant.adminKey);
  const res = await api('POST', '/api/v1/auth/keys', { headers, body: { name: 'e2e', scopes } });
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${res.text}`);
  return res.body.key as string;
}
