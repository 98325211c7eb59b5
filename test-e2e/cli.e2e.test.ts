import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from '@trove/testing';
import { LAUNCHER, PRODUCTION, bearer, client, createKey, devTenant, startTrove } from './support/system';

jest.setTimeout(120_000);


it('creates a tenant and its first admin key from the CLI, and that key works in production mode', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const out = spawnSync(process.execPath, [LAUNCHER, 'create-tenant', '--name', 'Acme'], { env, encoding: 'utf8' });
    expect(out.status).toBe(0);
    const key = /^key: (sk_live_[0-9a-f]{64})$/m.exec(out.stdout)?.[1];
    const tenantId = /^tenant_id: ([0-9a-f-]{36})$/m.exec(out.stdout)?.[1];
    expect(key).toBeDefined();
    expect(tenantId).toBeDefined();

    const trove = await startTrove({ dataDir, env: PRODUCTION });
    try {
      const api = client(trove.baseUrl);
      const keys = await api('GET', '/api/v1/auth/keys', { headers: bearer(key!) });
      expect(keys.status).toBe(200);
      expect(keys.body).toHaveLength(1);
      expect(keys.body[0].scopes).toEqual(['admin']);
      const rec = await api('POST', '/api/v1/records', {
        headers: bearer(key!),
        body: { name: 'first', collection: 'c', record_type: 't' },
      });
      expect(rec.status).toBe(201);
      // Outside development, X-Tenant-Id is no credential at all.
      const dev = await api('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'x', scopes: ['admin'] } });
      expect(dev.status).toBe(401);
      expect(trove.output()).not.toContain(key!);
    } finally {
      await trove.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses create-tenant without a name: a usage error, exit 2, in one line', () => {
  const out = spawnSync(process.execPath, [LAUNCHER, 'create-tenant'], {
    env: { ...process.env, ...PRODUCTION, DATA_DIR: mkdtempSync(join(tmpdir(), 'trove-cli-')) },
    encoding: 'utf8',
  });
  expect(out.status).toBe(2);
  expect(out.stderr).toBe("trove: required option '--name <name>' not specified\n");
});

/** set-plan on `dataDir` with the production secrets and `env` on top. */
function setPlan(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const all: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env };
  delete all.DATABASE_URL;
  return spawnSync(process.execPath, [LAUNCHER, 'set-plan', ...args], { env: all, encoding: 'utf8', timeout: 60_000 });
}

it("sets a tenant's plan from the CLI in self_hosted mode, and the system holds the tenant to it", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const created = createTenant(dataDir, 'Acme');
    expect(created.status).toBe(0);
    const key = /^key: (sk_live_[0-9a-f]{64})$/m.exec(created.stdout)?.[1];
    const tenantId = /^tenant_id: ([0-9a-f-]{36})$/m.exec(created.stdout)?.[1];
    const set = setPlan(dataDir, ['--tenant', tenantId!, '--plan', 'free']);
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout).toBe(`tenant_id: ${tenantId}\nplan: free\n`);

    const trove = await startTrove({ dataDir, env: PRODUCTION });
    try {
      const api = client(trove.baseUrl);
      const record = (collection: string) => api('POST', '/api/v1/records', { headers: bearer(key!), body: { name: 'r', collection, record_type: 't' } });
      expect((await record('first')).status).toBe(201);
      // Free allows one collection; the self-hosted default (enterprise) would allow any number.
      await eventually(async () => expect((await record('second')).status).toBe(402), 30_000);
    } finally {
      await trove.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses set-plan in cloud mode, where the payment provider sets plans, and for a bad tenant or plan', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const tenant = randomUUID();
    const cloud = setPlan(dataDir, ['--tenant', tenant, '--plan', 'pro'], { DEPLOYMENT_MODE: 'cloud', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' });
    expect(cloud.status).toBe(1);
    expect(cloud.stderr).toContain('self-hosted');
    // A value the command refuses is exit 1; a command line missing an option is a usage error, exit 2.
    for (const [args, says, status] of [
      [['--tenant', tenant, '--plan', 'platinum'], 'free, pro, scale, enterprise', 1],
      [['--tenant', 'acme', '--plan', 'pro'], 'UUID', 1],
      [['--plan', 'pro'], '--tenant', 2],
      [['--tenant', tenant], '--plan', 2],
    ] as const) {
      const out = setPlan(dataDir, [...args]);
      expect(out.status).toBe(status);
      expect(out.stderr).toContain(says);
      expect(out.stderr).toMatch(/^trove: [^\n]+\n$/);
      expect(out.stdout).toBe('');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** create-tenant on `dataDir` with the production secrets. */
function createTenant(dataDir: string, name: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  return spawnSync(process.execPath, [LAUNCHER, 'create-tenant', '--name', name], { env, encoding: 'utf8', timeout: 60_000 });
}

it('refuses create-tenant while the system runs on the same embedded database, naming the running process', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const running = await startTrove({ dataDir, env: PRODUCTION });
    let refused;
    try {
      refused = createTenant(dataDir, 'Acme');
    } finally {
      await running.stop();
    }
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`in use by process ${running.pid} `);
    expect(refused.stderr).toMatch(/^trove: [^\n]+\n$/);
    expect(refused.stdout).not.toContain('key:');

    const created = createTenant(dataDir, 'Acme');
    expect(created.status).toBe(0);
    const key = /^key: (sk_live_[0-9a-f]{64})$/m.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    const restarted = await startTrove({ dataDir, env: PRODUCTION });
    try {
      const keys = await client(restarted.baseUrl)('GET', '/api/v1/auth/keys', { headers: bearer(key!) });
      expect(keys.status).toBe(200);
    } finally {
      await restarted.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses to start a second system on a running one\'s data folder, and restarts at once after a crash', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
  try {
    const first = await startTrove({ dataDir });
    const tenant = randomUUID();
    const key = await createKey(client(first.baseUrl), tenant, ['admin']);
    try {
      await expect(startTrove({ dataDir })).rejects.toThrow(`in use by process ${first.pid} `);
    } finally {
      process.kill(first.pid, 'SIGKILL');
      await first.stop();
    }

    const second = await startTrove({ dataDir });
    try {
      const keys = await client(second.baseUrl)('GET', '/api/v1/auth/keys', { headers: bearer(key) });
      expect(keys.status).toBe(200);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The secret every development system signed its internal tokens with before it made one per process. */
const PUBLISHED_DEVELOPMENT_SECRET = 'trove-development-internal-token-secret-not-for-production';

/** An internal identity token as the gateway makes one (HS256), signed with `secret`. */
function internalToken(secret: string, tenantId: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { tid: tenantId, scopes: ['admin'], iat: now, exp: now + 60, iss: 'trove-gateway', aud: 'trove-services', sub: `dev:${tenantId}` };
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

it('believes, in development, no internal token a client sends, signed with the secret development systems once shared', async () => {
  const trove = await startTrove();
  try {
    // Under --target=all the services have no port: the gateway is the only way in, and it signs what it forwards itself.
    const api = client(trove.baseUrl);
    const victim = randomUUID();
    expect((await api('POST', '/api/v1/records', { headers: devTenant(victim), body: { name: 'Secret bolt', collection: 'bolts', record_type: 'part' } })).status).toBe(201);
    const forged = { 'x-trove-identity': internalToken(PUBLISHED_DEVELOPMENT_SECRET, victim) };
    expect((await api('GET', '/api/v1/records?collection=bolts', { headers: forged })).status).toBe(401);
    const mine = await api('GET', '/api/v1/records?collection=bolts', { headers: { ...forged, ...devTenant(randomUUID()) } });
    expect(mine.status).toBe(200);
    expect(mine.text).not.toContain('Secret bolt');
  } finally {
    await trove.stop();
  }
});

/** The local addresses on which some socket listens on `port`, read from the kernel's tables (no traffic sent). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local?.endsWith(`:${hexPort}`)) continue;
      const hex = local.slice(0, local.indexOf(':'));
      found.push(hex.length === 8 ? hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join('.') : hex === '0'.repeat(32) ? '::' : hex);
    }
  }
  return found;
}

it('listens only with the gateway, on HOST, when every service runs in one process, whatever <NAME>_PORT says', async () => {
  const recordsPort = await freePort();
  // HOST is 0.0.0.0, the default.
  const trove = await startTrove({ env: { RECORDS_PORT: String(recordsPort) } });
  try {
    const gatewayPort = Number(new URL(trove.baseUrl).port);
    expect(listeningAddresses(gatewayPort)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(recordsPort)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${recordsPort}/health`)).rejects.toThrow();
  } finally {
    await trove.stop();
  }
});

it('refuses to start a process running only some services without INTERNAL_TOKEN_SECRET, in development too', async () => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENV: 'development',
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'trove-cli-')),
    RECORDS_PORT: String(await freePort()),
  };
  delete env.INTERNAL_TOKEN_SECRET;
  delete env.DATABASE_URL;
  try {
    const out = spawnSync(process.execPath, [LAUNCHER, '--target=records'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/INTERNAL_TOKEN_SECRET: is required when a process runs only some services \(records\)/);
  } finally {
    rmSync(env.DATA_DIR!, { recursive: true, force: true });
  }
});

describe('the first hour with the launcher', () => {
  /** The launcher run with `args` in development on a data folder of its own; whatever it prints, and how it ended. */
  function launch(args: string[], env: Record<string, string> = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
    const all: NodeJS.ProcessEnv = { ...process.env, ENV: 'development', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ...env };
    delete all.DATABASE_URL;
    try {
      return spawnSync(process.execPath, [LAUNCHER, ...args], { env: all, encoding: 'utf8', timeout: 60_000 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it("prints the launcher's version and help on every command", () => {
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '../apps/trove/package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['start', '--version'], ['create-tenant', '-V']]) expect(launch(args)).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
    for (const command of ['start', 'create-tenant', 'set-plan', 'reencrypt-connectors']) {
      const help = launch([command, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain(`Usage: trove ${command} [options]`);
    }
    expect(launch(['start', '--help']).stdout).toContain('--target <names>');
  });

  it('refuses a wrong --target in one line naming the valid targets, exit 2', () => {
    const out = launch(['--target=gateway,recrods']);
    expect(out.status).toBe(2);
    expect(out.stderr).toBe(
      'trove: --target: Unknown target recrods; valid targets: all, auth, records, ingestion, connector, search, open, billing, mcp, gateway\n',
    );
  });

  it('refuses a port in use in one line naming its variable, exit 1, without a stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '0.0.0.0', res));
    const port = (taken.address() as { port: number }).port;
    try {
      const out = launch(['--target=all'], { PORT: String(port) });
      expect(out.status).toBe(1);
      expect(out.stderr).toBe(`trove: port ${port} on 0.0.0.0 is in use (EADDRINUSE): another process listens on it; set PORT to a free port\n`);
    } finally {
      await new Promise((res) => taken.close(res));
    }
  });

  it('refuses to start in production without its secrets, naming each, without a stack trace', () => {
    const out = launch(['--target=all'], { ENV: 'production' });
    expect(out.status).toBe(1);
    expect(out.stderr.split('\n')[0]).toBe('Invalid configuration:');
    expect(out.stderr).toMatch(/^ {2}API_KEY_SALT: /m);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('stops cleanly on Ctrl-C (SIGINT) with exit code 0, not by the signal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
    const env: NodeJS.ProcessEnv = { ...process.env, ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: String(await freePort()) };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [LAUNCHER, '--target=all', '--default-env=development'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
    try {
      await eventually(async () => expect(output).toContain('Trove is up'), 60_000);
      child.kill('SIGINT');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output).toContain('stopped');
      expect(output).not.toMatch(/\n\s+at /);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops cleanly on a Ctrl-C that comes while it is still starting: once up, it stops and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
    const env: NodeJS.ProcessEnv = { ...process.env, ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: String(await freePort()) };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [LAUNCHER, '--target=all', '--default-env=development'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
    try {
      // Its first log line (the development salt's warning) comes before any service has started.
      await eventually(async () => expect(output).toContain('API_KEY_SALT not set'), 60_000);
      child.kill('SIGINT');
      child.kill('SIGINT'); // a package manager forwards its own copy of the terminal's Ctrl-C
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output).toContain('stopping once started');
      expect(output).toContain('stopped');
      expect(output).not.toMatch(/\n\s+at /);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // A terminal's Ctrl-C signals the whole foreground process group: the package manager and the system alike, and each
  // runner also forwards a copy of its own to its child.
  async function ctrlCUnder(command: string, args: string[]): Promise<{ exit: { code: number | null; signal: NodeJS.Signals | null }; output: string }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-cli-'));
    const env: NodeJS.ProcessEnv = { ...process.env, ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: String(await freePort()) };
    delete env.DATABASE_URL;
    const child = spawn(command, args, { cwd: resolve(__dirname, '..'), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
    try {
      await eventually(async () => expect(output).toContain('Trove is up'), 90_000);
      process.kill(-child.pid!, 'SIGINT');
      const exit = await exited;
      return { exit, output };
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('stops cleanly on Ctrl-C under `pnpm trove`: pnpm exits 0 and prints no failure line', async () => {
    // pnpm as a user with pnpm on their PATH runs it (the README's `npx -y pnpm@…` puts npm's shell around it).
    const pnpm = spawnSync('npx', ['-y', '-p', 'pnpm@10.34.8', 'which', 'pnpm'], { encoding: 'utf8' }).stdout.trim();
    const { exit, output } = await ctrlCUnder(pnpm, ['trove', '--target=all']);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(output).toContain('stopped');
    expect(output).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it("stops cleanly on Ctrl-C under the README's `npx -y pnpm@… trove`, with no package-manager failure line", async () => {
    // npm runs pnpm through `sh -c`, and dash dies of the terminal's SIGINT (exit 130, "interrupted") whatever its
    // child does; what a user sees is that Trove stopped and no runner reports a failure.
    const { output } = await ctrlCUnder('npx', ['-y', 'pnpm@10.34.8', 'trove', '--target=all']);
    expect(output).toContain('stopped');
    expect(output).not.toMatch(/ELIFECYCLE|Command failed|npm error/);
    expect(output).not.toMatch(/\n\s+at /);
  });
});
