import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, SERVER } from './__tests__/harness.js';
import { saveProfile } from './config.js';

const KEY = `sk_live_${'a'.repeat(64)}`;
const TENANT = '0b9c7d2e-4f1a-4c3b-9d8e-7f6a5b4c3d2e';
/** A loopback port nothing listens on (one the system just gave and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const usage = () => ({ status: 200, body: { tenant_id: TENANT, usage: { requests: 1, searches: 0, records: 0 } } });

describe('the command line', () => {
  it('refuses an unknown option or command, a missing argument or a malformed value with one line and exit code 2', async () => {
    const { trove } = harness();
    for (const [argv, says] of [
      [['search', 'c', 'q', '--bogus'], "trove: unknown option '--bogus'"],
      [['serach'], "trove: unknown command 'serach'"],
      [['upload', 'file.csv', '--type', 't'], "trove: required option '--collection <name>' not specified"],
      [['search', 'c', '--filter', 'no-equals'], 'a filter is key=value'],
      [['records', 'list', '--limit', 'ten'], 'must be a whole number'],
      [['export', 'c', '--format', 'xlsx'], 'Allowed choices are csv, json'],
      [['keys', 'create', '--name', 'k', '--scopes', 'read'], 'scopes are a comma-separated list of search, upload, records, admin'],
      [['search'], 'name the collection to search'],
      [['search', 'c'], 'give a query, a --filter, or both'],
      [['export', 'c', '--json'], 'add -o FILE'],
    ] as const) {
      const ran = await trove([...argv]);
      expect({ argv, code: ran.code }).toEqual({ argv, code: 2 });
      expect(ran.stderr).toContain(says);
      expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(ran.stderr).not.toMatch(/\n\s+at /);
      expect(ran.stdout).toBe('');
    }
    // A near miss is named.
    expect((await trove(['serach'])).stderr).toContain('(Did you mean search?)');
  });

  it('prints the version and help for every command, with the exit codes, and exits 0', async () => {
    const { trove } = harness();
    expect(await trove(['--version'])).toEqual({ code: 0, stdout: '9.9.9\n', stderr: '' });
    expect(await trove(['upload', '--version'])).toEqual({ code: 0, stdout: '9.9.9\n', stderr: '' });
    for (const argv of [[], ['search'], ['keys'], ['keys', 'create'], ['replace'], ['replace', 'swap'], ['uploads', 'errors'], ['login']]) {
      const ran = await trove([...argv, '--help']);
      expect({ argv, code: ran.code }).toEqual({ argv, code: 0 });
      expect(ran.stdout).toContain('Usage: trove');
      expect(ran.stdout).toContain('Exit codes: 0 success; 1 refused');
      expect(ran.stdout).toContain('TROVE_URL, TROVE_API_KEY');
    }
    const top = (await trove(['--help'])).stdout;
    for (const command of ['login', 'logout', 'whoami', 'keys', 'collections', 'records', 'upload', 'uploads', 'search', 'export', 'replace']) {
      expect(top).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect((await trove(['search', '--help'])).stdout).toContain('--json');
  });

  it("lists the server's commands first in one help, and runs the default command when none is named", async () => {
    const { trove } = harness();
    const started: unknown[] = [];
    const server = (program: import('commander').Command) =>
      program
        .command('start')
        .option('--target <names>', 'targets', 'all')
        .action(async (opts: unknown) => void started.push(opts));
    const help = (await trove(['--help'], { server })).stdout;
    expect(help.indexOf('Server commands:')).toBeGreaterThan(-1);
    expect(help.indexOf('Server commands:')).toBeLessThan(help.indexOf('Client commands'));
    expect((await trove(['--target=all'], { server })).code).toBe(0);
    expect((await trove([], { server })).code).toBe(0);
    expect(started).toEqual([{ target: 'all' }, { target: 'all' }]);
    expect((await trove(['bogus'], { server })).stderr).toContain("unknown command 'bogus'");
  });
});

describe('login, whoami and logout', () => {
  it('stores a checked key in a 0600 file inside a 0700 folder, shows whom it stands for, and forgets it', async () => {
    const keysList = () => ({ status: 200, body: [] });
    const { trove, configDir } = harness({ 'GET /api/v1/usage': usage, 'GET /api/v1/auth/keys': keysList });
    const login = await trove(['login', SERVER, '--api-key', KEY]);
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toContain(`Signed in to ${SERVER} as tenant ${TENANT}`);
    expect(login.stdout).not.toContain(KEY);
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { url: SERVER, api_key: KEY, tenant_id: TENANT } } });

    const who = await trove(['whoami', '--json']);
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ profile: 'default', url: SERVER, api_key: { source: 'profile', tenant_id: TENANT, scopes: ['admin'] }, portal: null });
    expect(who.stdout).not.toContain(KEY);

    expect(await trove(['logout'])).toMatchObject({ code: 0, stdout: `Signed out of ${SERVER} (profile "default").\n` });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: {} });
    expect(await trove(['whoami'])).toMatchObject({ code: 1, stderr: 'trove: not signed in: run `trove login`, or set TROVE_URL and TROVE_API_KEY\n' });
  });

  it('refuses a key the server refuses, storing nothing', async () => {
    const { trove, configDir } = harness({ 'GET /api/v1/usage': () => ({ status: 401, body: { detail: 'Invalid API key' } }) });
    const ran = await trove(['login', SERVER, '--api-key', KEY]);
    expect(ran).toMatchObject({ code: 1, stdout: '' });
    expect(ran.stderr).toBe('trove: Invalid API key (run `trove login` again, or check TROVE_API_KEY) [401]\n');
    expect(() => statSync(join(configDir, 'config.json'))).toThrow();
  });

  it('signs in to the portal with the password on stdin, creating a key for the CLI that logout revokes', async () => {
    const revoked: string[] = [];
    const { trove, configDir } = harness({
      'POST /api/v1/portal/auth/login': (req) => {
        expect(JSON.parse(req.body)).toEqual({ email: 'ada@example.com', password: 'a long passphrase' });
        return { status: 200, body: { token: 'jwt.token.here', token_type: 'Bearer', expires_in: 3600, account: { user_id: TENANT, email: 'ada@example.com', tenant_id: TENANT, display_name: null, company: null, created_at: '2026-01-01T00:00:00.000Z' } } };
      },
      'POST /api/v1/portal/keys': (req) => {
        expect(req.headers.get('authorization')).toBe('Bearer jwt.token.here');
        return { status: 201, body: { id: '11111111-2222-4333-8444-555555555555', name: JSON.parse(req.body).name, key: KEY, scopes: ['admin'], created_at: '2026-01-01T00:00:00.000Z', message: 'Store it' } };
      },
      'DELETE /api/v1/portal/keys/11111111-2222-4333-8444-555555555555': () => {
        revoked.push('portal');
        return { status: 204 };
      },
    });
    const login = await trove(['login', SERVER, '--email', 'ada@example.com', '--password-stdin', '--key-name', 'laptop'], { stdin: 'a long passphrase\n' });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('as ada@example.com');
    expect(login.stdout).toContain('Created the API key "laptop" (admin)');
    expect(login.stdout).toContain('The portal sign-in expires at');
    const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default;
    expect(stored).toMatchObject({ url: SERVER, api_key: KEY, key_created_by_login: true, portal_token: 'jwt.token.here', email: 'ada@example.com' });
    expect(Date.parse(stored.portal_token_expires_at) - Date.now()).toBeGreaterThan(3500_000);

    const logout = await trove(['logout', '--json']);
    expect(JSON.parse(logout.stdout)).toEqual({ profile: 'default', removed: true, key_revoked: true });
    expect(revoked).toEqual(['portal']);
  });

  it('asks for what it needs only on a terminal', async () => {
    const { trove } = harness();
    expect(await trove(['login', SERVER])).toMatchObject({ code: 2, stderr: 'trove: login needs --api-key <key> or --email <email> (there is no terminal to ask on)\n' });
    expect((await trove(['login', SERVER, '--email', 'a@b.c'])).stderr).toContain('--password-stdin');
  });

  it('takes TROVE_URL and TROVE_API_KEY from the environment, without a stored login', async () => {
    const { trove, env, seen } = harness({ 'GET /api/v1/collections': () => ({ status: 200, body: { collections: [] } }) });
    expect(await trove(['collections', 'list'])).toMatchObject({ code: 1, stderr: 'trove: no server: run `trove login <url>`, or set TROVE_URL (or give --url)\n' });
    env.TROVE_URL = `${SERVER}/`;
    expect((await trove(['collections', 'list'])).stderr).toBe('trove: not signed in with an API key: run `trove login`, or set TROVE_API_KEY\n');
    env.TROVE_API_KEY = KEY;
    expect(await trove(['collections', 'list'])).toMatchObject({ code: 0, stdout: 'No collections yet: `trove upload FILE --collection NAME --type TYPE` makes one.\n' });
    expect(seen.at(-1)!.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen.at(-1)!.headers.get('user-agent')).toBe('trove-cli/9.9.9');
  });

  it('says a portal command needs the portal sign-in', async () => {
    const { trove, env } = harness();
    env.TROVE_URL = SERVER;
    env.TROVE_API_KEY = KEY;
    const ran = await trove(['replace', 'status', 'bolts']);
    expect(ran).toMatchObject({ code: 1, stderr: 'trove: this command needs a portal sign-in (the API lets only a signed-in person do it): run `trove login --email <email>`\n' });
  });
});

describe('answers and failures', () => {
  const SEARCH = {
    results: [
      { record_id: 'r1', name: 'M8 hex bolt', score: 1, collection: 'fasteners', record_type: 'product', collection_data: {}, description_llm: '', source_type: 'api', updated_at: '2026-01-01T00:00:00Z' },
      { record_id: 'r2', name: 'M10 hex bolt', score: 0.5, collection: 'fasteners', record_type: 'product', collection_data: {}, description_llm: '', source_type: 'api', updated_at: '2026-01-01T00:00:00Z' },
    ],
    pagination: { offset: 0, limit: 2, has_more: true },
    metadata: { search_mode: 'fulltext', query_type: 'keyword', processing_time_ms: 3, total_estimate: 7, cache_hit: false, zero_result_fallback_used: false },
  };

  it('prints search results as a table, or the answer as JSON, sending the filters (a key twice: any of)', async () => {
    const { trove, env, seen } = harness({ 'POST /api/v1/search/fasteners': () => ({ status: 200, body: SEARCH }) });
    Object.assign(env, { TROVE_URL: SERVER, TROVE_API_KEY: KEY });
    const ran = await trove(['search', 'fasteners', 'hex bolt', '--filter', 'material=steel', '--filter', 'size=M8', '--filter', 'size=M10', '--filter', 'price_max=2', '--limit', '2']);
    expect(ran.code).toBe(0);
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: 'hex bolt', filters: { material: 'steel', size: ['M8', 'M10'], price_max: '2' }, limit: 2 });
    expect(ran.stdout).toMatch(/│ 1 +│ M8 hex bolt +│ 1\.00 +│ product +│ r1 +│/);
    expect(ran.stdout).toMatch(/│ 2 +│ M10 hex bolt +│ 0\.50 +│/);
    expect(ran.stdout).toContain('1-2 of 7 (fulltext, 3 ms); more: --offset 2');

    const json = await trove(['search', 'fasteners', 'hex bolt', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(SEARCH);
  });

  it('exits 1 with the detail for a refusal, each problem of a 422, and 3 for a server failure or no server', async () => {
    const { trove, env } = harness({
      'GET /api/v1/records/missing': () => ({ status: 404, body: { detail: 'Record not found' } }),
      'POST /api/v1/search/c': () => ({
        status: 422,
        body: { detail: [{ loc: ['body', 'limit'], msg: 'Too big: expected number to be <=100', type: 'too_big', input: 500, ctx: {} }] },
      }),
      'GET /api/v1/collections': () => ({ status: 500, body: { detail: 'Internal server error' }, headers: { 'x-request-id': 'req-1' } }),
    });
    Object.assign(env, { TROVE_URL: SERVER, TROVE_API_KEY: KEY });
    expect(await trove(['records', 'get', 'missing'])).toEqual({ code: 1, stdout: '', stderr: 'trove: Record not found [404]\n' });
    expect(await trove(['search', 'c', 'q', '--limit', '500'])).toEqual({ code: 1, stdout: '', stderr: 'trove: body.limit: Too big: expected number to be <=100\n' });
    expect(await trove(['collections', 'list'])).toEqual({ code: 3, stdout: '', stderr: 'trove: Internal server error (request id req-1) [500]\n' });
    const port = await closedPort();
    const gone = await trove(['collections', 'list', '--url', `http://127.0.0.1:${port}`]);
    expect(gone).toEqual({ code: 3, stdout: '', stderr: `trove: cannot reach http://127.0.0.1:${port} (connection refused): is Trove started there?\n` });
  });

  it('archives a collection only when told --yes where there is no terminal to ask on', async () => {
    const { trove, env, seen } = harness({ 'DELETE /api/v1/portal/collections/bolts': () => ({ status: 200, body: { collection: 'bolts', records_archived: 3 } }) });
    const later = new Date(Date.now() + 3600_000).toISOString();
    saveProfile(env, 'default', { url: SERVER, portal_token: 'jwt', portal_token_expires_at: later, email: 'ada@example.com' });
    expect(await trove(['collections', 'delete', 'bolts'])).toMatchObject({ code: 2, stderr: 'trove: this archives every record of "bolts": add --yes to confirm\n' });
    expect(seen).toEqual([]);
    expect(await trove(['collections', 'delete', 'bolts', '--yes'])).toEqual({ code: 0, stdout: 'Archived 3 records of "bolts"; they are gone from search.\n', stderr: '' });
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer jwt');

    saveProfile(env, 'default', { url: SERVER, portal_token: 'jwt', portal_token_expires_at: new Date(Date.now() - 1000).toISOString(), email: 'ada@example.com' });
    const expired = await trove(['collections', 'delete', 'bolts', '--yes']);
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(/^trove: the portal sign-in of profile "default" expired at .+: sign in again with `trove login --email ada@example.com`\n$/);
  });

  it('uploads a file asking for the asynchronous answer, follows it, and ends with the counts and dead letters', async () => {
    const id = '7d7f2a5e-1b8c-4c6e-9a57-3f1e2d4c5b6a';
    const status = (done: boolean) => ({
      id,
      status: done ? 'complete' : 'processing',
      collection: 'bolts',
      record_type: 'product',
      source_type: 'file_upload',
      source_name: 'bolts.csv',
      summary: done ? { submitted: 3, accepted: 2, rejected: 1, dedup_skipped: 0 } : { submitted: 1, accepted: 0, rejected: 0, dedup_skipped: 0 },
      progress: { records_read: done ? 3 : 1, records_total: null, bytes_read: done ? 40 : 10, bytes_total: 40 },
      failure: null,
      errors: [],
      metadata: { processing_time_ms: done ? 1234 : null, file_hash: null, reconciliation_passed: null, pipeline_backpressure: null },
      created_at: '2026-01-01T00:00:00.000Z',
      completed_at: done ? '2026-01-01T00:00:01.000Z' : null,
    });
    let reads = 0;
    const { trove, env, seen } = harness({
      'POST /api/v1/upload/bolts/product/upload': () => ({ status: 202, body: { upload_id: id, status: 'processing' }, headers: { 'preference-applied': 'respond-async' } }),
      [`GET /api/v1/uploads/${id}`]: () => ({ status: 200, body: status(reads++ > 0) }),
    });
    Object.assign(env, { TROVE_URL: SERVER, TROVE_API_KEY: KEY });
    const dir = mkdtempSync(join(tmpdir(), 'trove-cli-upload-'));
    const file = join(dir, 'bolts.csv');
    writeFileSync(file, 'name,size\nM8 bolt,8\nM10 bolt,10\n,12\n');

    const ran = await trove(['upload', file, '--collection', 'bolts', '--type', 'product', '--name-column', 'name']);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(seen[0]!.headers.get('prefer')).toBe('respond-async');
    expect(seen[0]!.body).toContain('name="name_column"\r\n\r\nname\r\n');
    expect(seen[0]!.body).toContain('filename="bolts.csv"');
    expect(ran.stdout).toBe(
      [
        `Upload ${id} complete in 1.2 s: 3 records read (40 B)`,
        '  accepted:      2',
        '  rejected:      1',
        '  dedup skipped: 0',
        `Dead letters: 1 (\`trove uploads errors ${id}\` lists them)`,
        '',
      ].join('\n'),
    );

    reads = 0;
    const json = await trove(['upload', file, '--collection', 'bolts', '--type', 'product', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(status(true));
    expect(await trove(['upload', join(dir, 'missing.csv'), '--collection', 'bolts', '--type', 'product'])).toEqual({ code: 1, stdout: '', stderr: `trove: ${join(dir, 'missing.csv')}: no such file\n` });
  });

  it('exports a collection: starts it, follows it, and writes the file', async () => {
    const exportId = '5f0c7a8e-2d4b-4c1a-9e3f-6b7a8c9d0e1f';
    let polls = 0;
    const { trove, env, seen } = harness({
      'POST /api/v1/export': () => ({ status: 202, body: { export_id: exportId, status: 'processing' } }),
      [`GET /api/v1/export/${exportId}/status`]: () => ({ status: 200, body: { export_id: exportId, status: polls++ > 0 ? 'completed' : 'processing', progress: polls > 1 ? 2 : 1, total: 2 } }),
      [`GET /api/v1/export/${exportId}/download`]: () => new Response('id,name\nr1,M8 bolt\nr2,M10 bolt\n', { headers: { 'content-type': 'text/csv; charset=utf-8' } }),
    });
    Object.assign(env, { TROVE_URL: SERVER, TROVE_API_KEY: KEY });
    const file = join(mkdtempSync(join(tmpdir(), 'trove-cli-export-')), 'bolts.csv');
    const ran = await trove(['export', 'bolts', '--format', 'csv', '-o', file]);
    expect(ran).toEqual({ code: 0, stdout: `Exported 2 records of "bolts" as CSV to ${file}.\n`, stderr: '' });
    expect(seen[0]!.url).toBe('/api/v1/export?collection=bolts&format=csv&status=active');
    expect(readFileSync(file, 'utf8')).toBe('id,name\nr1,M8 bolt\nr2,M10 bolt\n');

    polls = 0;
    const toStdout = await trove(['export', 'bolts', '--format', 'csv']);
    expect(toStdout).toEqual({ code: 0, stdout: 'id,name\nr1,M8 bolt\nr2,M10 bolt\n', stderr: 'Exported 2 records of "bolts" as CSV.\n' });
  });
});
