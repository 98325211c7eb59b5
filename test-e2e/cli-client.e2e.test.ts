import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from '@trove/testing';
import { LAUNCHER, bearer, useTrove } from './support/system';

jest.setTimeout(120_000);

/**
 * The `trove` command line's client commands, each group run as a process (`node apps/trove/dist/main.js …`, as
 * `pnpm trove …` runs it) against a started system, with a configuration folder of its own: the output people read,
 * the `--json` scripts read, and the exit codes (docs/cli.md).
 */

const VERSION = (JSON.parse(readFileSync(resolve(__dirname, '../apps/trove/package.json'), 'utf8')) as { version: string }).version;

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('the trove CLI against a started system', () => {
  const trove = useTrove();
  const work = mkdtempSync(join(tmpdir(), 'trove-cli-e2e-'));
  const config = join(work, 'config');
  const email = `cli-${randomUUID()}@example.com`;
  const password = `a long passphrase ${randomUUID()}`;
  const collection = `bolts-${randomUUID().slice(0, 8)}`;

  /** Runs `trove args…` as a process, as a person would in a terminal-less shell (stdin from `input`). */
  function cli(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Ran {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.TROVE_API_KEY;
    delete env.TROVE_PROFILE;
    Object.assign(env, { XDG_CONFIG_HOME: config, TROVE_URL: trove.baseUrl, ...opts.env });
    const ran = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: work, env, input: opts.input ?? '', encoding: 'utf8', timeout: 90_000 });
    return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
  }

  /** Runs a command with --json and answers what it printed, parsed; fails the test with its stderr otherwise. */
  function cliJson<T = any>(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): T {
    const ran = cli([...args, '--json'], opts);
    if (ran.status !== 0) throw new Error(`trove ${args.join(' ')} exited ${ran.status}: ${ran.stderr}`);
    expect(ran.stderr).toBe('');
    return JSON.parse(ran.stdout) as T;
  }

  const file = (name: string, content: string) => {
    const path = join(work, name);
    writeFileSync(path, content);
    return path;
  };

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  let key: string;

  describe('help, version and usage', () => {
    it('prints the version and help of every command group, exit 0', () => {
      expect(cli(['--version'])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: '' });
      expect(cli(['search', '--version']).stdout).toBe(`${VERSION}\n`);
      for (const group of ['login', 'logout', 'whoami', 'keys', 'collections', 'records', 'upload', 'uploads', 'search', 'export', 'replace', 'start']) {
        const help = cli([group, '--help']);
        expect({ group, status: help.status }).toEqual({ group, status: 0 });
        expect(help.stdout).toContain(`Usage: trove ${group}`);
        expect(help.stdout).toContain('Exit codes: 0 success');
      }
      const top = cli(['--help']).stdout;
      expect(top).toContain('Server commands');
      expect(top).toMatch(/^ {2}create-tenant /m);
      expect(top).toMatch(/^ {2}upload /m);
    });

    it('refuses an unknown option or command with one line and exit 2', () => {
      for (const args of [['search', collection, 'bolt', '--bogus'], ['upload'], ['serach', 'x']]) {
        const ran = cli(args);
        expect({ args, status: ran.status }).toEqual({ args, status: 2 });
        expect(ran.stderr).toMatch(/^trove: [^\n]+\n$/);
        expect(ran.stdout).toBe('');
      }
    });
  });

  describe('login, whoami and logout', () => {
    it('signs up in the portal with the password on stdin, storing the sign-in and a new key in a 0600 file', () => {
      const login = cli(['login', trove.baseUrl, '--signup', '--email', email, '--password-stdin'], { input: `${password}\n` });
      expect(login.stderr).toBe('');
      expect(login.status).toBe(0);
      expect(login.stdout).toContain(`Signed in to ${trove.baseUrl} as ${email}`);
      const path = join(config, 'trove', 'config.json');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(config, 'trove')).mode & 0o777).toBe(0o700);
      const stored = JSON.parse(readFileSync(path, 'utf8')).profiles.default;
      expect(stored).toMatchObject({ url: trove.baseUrl, email, key_created_by_login: true, key_scopes: ['admin'] });
      expect(stored.api_key).toMatch(/^sk_live_[0-9a-f]{64}$/);
      // Neither the key nor the token is ever printed, but by keys create.
      expect(login.stdout).not.toContain(stored.api_key);
      expect(login.stdout).not.toContain(stored.portal_token);
      key = stored.api_key;
    });

    it('shows whom the stored login stands for', () => {
      const who = cliJson(['whoami']);
      expect(who).toMatchObject({ profile: 'default', url: trove.baseUrl, api_key: { source: 'profile', scopes: ['admin'] }, portal: { email, expired: false } });
      expect(who.api_key.tenant_id).toBe(who.portal.tenant_id);
      const human = cli(['whoami']);
      expect(human.status).toBe(0);
      expect(human.stdout).toMatch(/^url: +http:\/\/127\.0\.0\.1:\d+$/m);
      expect(human.stdout).toContain(`portal:         ${email}`);
    });

    it('signs in again with the portal password, and with a key into a profile of its own', () => {
      const again = cliJson(['login', trove.baseUrl, '--email', email, '--password-stdin', '--profile', 'second', '--no-create-key'], { input: password });
      expect(again).toMatchObject({ profile: 'second', email, api_key: null });
      const keyed = cliJson(['login', trove.baseUrl, '--api-key', key, '--profile', 'keyed']);
      expect(keyed).toMatchObject({ profile: 'keyed', api_key: { created_by_login: false } });
      expect(cliJson(['whoami', '--profile', 'keyed'])).toMatchObject({ api_key: { source: 'profile', scopes: ['admin'] }, portal: null });
      // A wrong password is the server's 401: a user error.
      const wrong = cli(['login', trove.baseUrl, '--email', email, '--password-stdin', '--profile', 'third'], { input: 'not the password' });
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/^trove: .+ \[401\]\n$/);
    });
  });

  describe('keys', () => {
    it('creates a key (shown once), lists, rotates and revokes it; a key from the environment shows its scopes', () => {
      const created = cliJson(['keys', 'create', '--name', 'ci', '--scopes', 'search,upload']);
      expect(created).toMatchObject({ name: 'ci', scopes: ['search', 'upload'] });
      expect(created.key).toMatch(/^sk_live_/);
      const human = cli(['keys', 'create', '--name', 'shown', '--scopes', 'search']);
      expect(human.stdout).toMatch(/^key: +sk_live_[0-9a-f]{64}$/m);
      expect(human.stdout).toContain('Store this key now: it is shown only once.');

      const listed = cliJson<{ id: string; name: string }[]>(['keys', 'list']);
      expect(listed.map((k) => k.name)).toEqual(expect.arrayContaining(['ci', 'shown']));
      expect(JSON.stringify(listed)).not.toContain('sk_live_');
      expect(cli(['keys', 'list']).stdout).toMatch(/│ ci +│ search,upload +│/);

      const fromEnv = { TROVE_API_KEY: created.key };
      expect(cliJson(['whoami'], { env: fromEnv }).api_key).toMatchObject({ source: 'TROVE_API_KEY', scopes: ['upload', 'search'] });

      const rotated = cliJson(['keys', 'rotate', created.id]);
      expect(rotated.id).toBe(created.id);
      expect(rotated.key).not.toBe(created.key);
      const old = cli(['whoami'], { env: fromEnv });
      expect(old.status).toBe(1);
      expect(old.stderr).toContain('[401]');

      expect(cliJson(['keys', 'revoke', created.id])).toEqual({ id: created.id, revoked: true });
      expect(cliJson<{ id: string }[]>(['keys', 'list']).map((k) => k.id)).not.toContain(created.id);
      const missing = cli(['keys', 'revoke', created.id]);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toMatch(/\[404\]\n$/);
    });
  });

  let uploadId: string;

  describe('uploads', () => {
    it('uploads a CSV and ends with the counts and the dead letters, which uploads errors lists', () => {
      const csv = file('bolts.csv', 'name,size,material\nM8 hex bolt,8,steel\nM10 hex bolt,10,steel\n,12,brass\nM6 hex nut,6,brass\n');
      const ran = cli(['upload', csv, '--collection', collection, '--type', 'product']);
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      const id = /^Upload ([0-9a-f-]{36}) complete in [\d.]+ s: 4 records read \(\d+ B\)$/m.exec(ran.stdout)?.[1];
      expect(id).toBeDefined();
      uploadId = id!;
      expect(ran.stdout).toMatch(/^ {2}accepted: +3$/m);
      expect(ran.stdout).toMatch(/^ {2}rejected: +1$/m);
      expect(ran.stdout).toContain(`Dead letters: 1 (\`trove uploads errors ${uploadId}\` lists them)`);

      const letters = cliJson<{ record_index: number; error: string; record_data: object }[]>(['uploads', 'errors', uploadId]);
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({ record_index: 2, record_data: { size: 12, material: 'brass' } });
      expect(cli(['uploads', 'errors', uploadId]).stdout).toContain('1 dead letter');
    });

    it('prints the final status with --json, for NDJSON and PDF files too, and lists the uploads', () => {
      const ndjson = file('more.ndjson', '{"name":"M12 hex bolt","size":12,"material":"steel"}\n{"name":"M5 washer","size":5,"material":"steel"}\n');
      const status = cliJson(['upload', ndjson, '--collection', collection, '--type', 'product']);
      expect(status).toMatchObject({ status: 'complete', collection, record_type: 'product', summary: { submitted: 2, accepted: 2, rejected: 0 }, progress: { records_read: 2 } });

      const pdf = join(work, 'guide.pdf');
      copyFileSync(resolve(__dirname, '../services/ingestion/test/fixtures/titled.pdf'), pdf);
      const pdfStatus = cliJson(['upload', pdf, '--collection', `${collection}-docs`, '--type', 'manual']);
      expect(pdfStatus).toMatchObject({ status: 'complete', summary: { accepted: 1, rejected: 0 } });

      const listed = cliJson(['uploads', 'list', '--limit', '10']);
      expect(listed.items.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([uploadId, status.id, pdfStatus.id]));
      expect(cliJson(['uploads', 'status', uploadId])).toMatchObject({ id: uploadId, status: 'complete', summary: { rejected: 1 } });
    });

    it('draws the progress bars of an upload on a terminal', () => {
      const csv = file('terminal.csv', `name,size\n${Array.from({ length: 2_000 }, (_, i) => `Bolt ${i},${i}`).join('\n')}\n`);
      const command = `${process.execPath} ${LAUNCHER} upload ${csv} --collection ${collection}-tty --type product`;
      // `script` gives the command a pseudo-terminal, as a person's shell would (util-linux, in every Debian).
      const ran = spawnSync('script', ['-qefc', command, '/dev/null'], {
        cwd: work,
        env: { ...process.env, XDG_CONFIG_HOME: config, TROVE_URL: trove.baseUrl, TROVE_API_KEY: key, COLUMNS: '160' },
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(ran.status).toBe(0);
      expect(ran.stdout).toMatch(/Sending terminal\.csv \[[█░]{30}\] 100% \| [\d.]+ kB of [\d.]+ kB/);
      expect(ran.stdout).toMatch(/Writing records \[[█░]{30}\] \d+% \|/);
      expect(ran.stdout).toContain('2,000 records read');
    });

    it('refuses a file that is not there (1) and an upload of a file Trove cannot read (1, the 422 problem)', () => {
      const missing = cli(['upload', 'nope.csv', '--collection', collection, '--type', 'product']);
      expect(missing).toEqual({ status: 1, stdout: '', stderr: 'trove: nope.csv: no such file\n' });
      const prose = cli(['upload', file('notes.txt', 'Just some words about bolts.\n'), '--collection', collection, '--type', 'product']);
      expect(prose.status).toBe(1);
      expect(prose.stderr).toMatch(/^trove: body\.file: .+\n$/);
    });
  });

  describe('collections and records', () => {
    it("lists collections, shows one's schema, lists and reads records", async () => {
      await eventually(async () => {
        const listed = cliJson(['collections', 'list']);
        expect(listed.collections.find((c: { name: string }) => c.name === collection)).toMatchObject({ total_records: 5, indexed: 5 });
      }, 30_000);
      expect(cli(['collections', 'list']).stdout).toMatch(new RegExp(`│ ${collection} +│ product +│ 5 +│`));

      const schema = cli(['collections', 'schema', collection]);
      expect(schema.status).toBe(0);
      expect(schema.stdout).toMatch(/\| material \| string \|/);
      expect(schema.stdout).toMatch(/\| size \| integer \|/);
      const unknown = cli(['collections', 'schema', `${collection}-none`]);
      expect(unknown.status).toBe(1);

      const page = cliJson(['records', 'list', '--collection', collection, '--limit', '2']);
      expect(page.items).toHaveLength(2);
      expect(page.has_more).toBe(true);
      const all = cliJson<{ id: string; name: string }[]>(['records', 'list', '--collection', collection, '--all', '--limit', '2']);
      expect(all.map((r) => r.name).sort()).toEqual(['M10 hex bolt', 'M12 hex bolt', 'M5 washer', 'M6 hex nut', 'M8 hex bolt']);
      const bolt = all.find((r) => r.name === 'M8 hex bolt')!;
      expect(cliJson(['records', 'get', bolt.id])).toMatchObject({ id: bolt.id, collection_data: { size: 8, material: 'steel' } });
      expect(cli(['records', 'get', bolt.id]).stdout).toMatch(/^collection_data:\n {2}\{\n/m);

      const missing = cli(['records', 'get', randomUUID()]);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toMatch(/^trove: .+ \[404\]\n$/);
    });
  });

  describe('search', () => {
    it('prints a table, or the JSON answer, with filters', () => {
      const table = cli(['search', collection, 'hex bolt']);
      expect(table.status).toBe(0);
      expect(table.stdout).toMatch(/│ 1 +│ M\d+ hex bolt +│ [01]\.\d\d +│ product +│ [0-9a-f-]{36} +│/);
      expect(table.stdout).toMatch(/of 3 \(fulltext, [\d.]+ ms\)/);

      const filtered = cliJson(['search', collection, '--filter', 'material=steel', '--filter', 'size_min=9', '--limit', '10']);
      expect(filtered.results.map((r: { name: string }) => r.name).sort()).toEqual(['M10 hex bolt', 'M12 hex bolt']);
      const either = cliJson(['search', collection, '--filter', 'size=8', '--filter', 'size=6']);
      expect(either.results.map((r: { name: string }) => r.name).sort()).toEqual(['M6 hex nut', 'M8 hex bolt']);

      const tooMany = cli(['search', collection, 'bolt', '--limit', '500']);
      expect(tooMany.status).toBe(1);
      expect(tooMany.stderr).toMatch(/^trove: body\.limit: .+\n$/);
    });

    it('searches public records through the Open API with --open, without a credential', async () => {
      const ids = cliJson<{ id: string }[]>(['records', 'list', '--collection', collection, '--all']).map((r) => r.id);
      const made = await trove.api('POST', '/api/v1/records/bulk-visibility', { headers: bearer(key), body: { record_ids: ids, visibility: 'public' } });
      expect(made.status).toBe(200);
      const anonymous = { XDG_CONFIG_HOME: join(work, 'nobody') };
      await eventually(async () => {
        const open = cliJson(['search', '--open', collection, 'hex bolt'], { env: anonymous });
        expect(open.results.map((r: { name: string }) => r.name).sort()).toEqual(['M10 hex bolt', 'M12 hex bolt', 'M8 hex bolt']);
      }, 30_000);
      const everywhere = cli(['search', '--open', '--all-collections', 'M6 hex nut', '--limit', '50'], { env: anonymous });
      expect(everywhere.status).toBe(0);
      expect(everywhere.stdout).toMatch(new RegExp(`│ M6 hex nut +│ [01]\\.\\d\\d +│ ${collection} +│`));
      expect(cliJson(['collections', 'schema', collection, '--open'], { env: anonymous })).toMatchObject({ collection, record_count: 5 });
    });
  });

  describe('export', () => {
    it('exports as CSV and JSON to a file, and to stdout', () => {
      const csvFile = join(work, 'out.csv');
      const csv = cli(['export', collection, '--format', 'csv', '-o', csvFile]);
      expect(csv).toEqual({ status: 0, stdout: `Exported 5 records of "${collection}" as CSV to ${csvFile}.\n`, stderr: '' });
      const lines = readFileSync(csvFile, 'utf8').trimEnd().split('\n');
      expect(lines[0]).toMatch(/^id,name,collection,record_type,.*,collection_data\.material,collection_data\.size$/);
      expect(lines).toHaveLength(6);
      expect(lines.some((l) => l.includes(',M8 hex bolt,') && l.endsWith(',steel,8'))).toBe(true);

      const jsonFile = join(work, 'out.json');
      const json = cliJson(['export', collection, '--format', 'json', '-o', jsonFile]);
      expect(json).toMatchObject({ status: 'completed', total: 5, file: jsonFile });
      const records = JSON.parse(readFileSync(jsonFile, 'utf8')) as { name: string; collection_data: object }[];
      expect(records.map((r) => r.name).sort()).toEqual(['M10 hex bolt', 'M12 hex bolt', 'M5 washer', 'M6 hex nut', 'M8 hex bolt']);

      const toStdout = cli(['export', collection, '--format', 'json']);
      expect(toStdout.status).toBe(0);
      expect(JSON.parse(toStdout.stdout)).toHaveLength(5);
      expect(toStdout.stderr).toBe(`Exported 5 records of "${collection}" as JSON.\n`);

      expect(cli(['export', `${collection}-none`, '-o', join(work, 'none.csv')]).status).toBe(1);
    });
  });

  describe('replace', () => {
    it('stages a file, follows it until ready, swaps it in; stages another and cancels it', async () => {
      const next = file('next.csv', 'name,size\nM16 hex bolt,16\nM20 hex bolt,20\n');
      const staged = cliJson(['replace', collection, next, '--type', 'product']);
      expect(staged.upload).toMatchObject({ status: 'complete', summary: { accepted: 2 } });

      const ready = cliJson(['replace', 'status', collection, '--wait']);
      expect(ready).toMatchObject({ has_pending_replace: true, ready_to_swap: true, total: 2, indexed: 2 });
      const human = cli(['replace', 'status', collection]);
      expect(human.stdout).toMatch(/^ready to swap: +yes$/m);

      const swapped = cliJson(['replace', 'swap', collection]);
      expect(swapped).toMatchObject({ collection, new_record_count: 2, old_record_count: 5 });
      await eventually(async () => {
        const found = cliJson(['search', collection, 'hex bolt']);
        expect(found.results.map((r: { name: string }) => r.name).sort()).toEqual(['M16 hex bolt', 'M20 hex bolt']);
      }, 30_000);

      const again = cli(['replace', 'upload', collection, file('other.csv', 'name\nM30 hex bolt\n'), '--type', 'product']);
      expect(again.status).toBe(0);
      expect(again.stdout).toContain(`Staged as generation ${swapped.new_generation + 1} of "${collection}".`);
      expect(cliJson(['replace', 'cancel', collection])).toMatchObject({ collection, cancelled_generation: swapped.new_generation + 1, records_archived: 1 });
      const nothing = cli(['replace', 'swap', collection]);
      expect(nothing.status).toBe(1);
      expect(nothing.stderr).toMatch(/\[409\]\n$/);
      expect(cli(['replace', 'status', collection]).stdout).toBe(`"${collection}" has no replace pending.\n`);
    });

    it('needs the portal sign-in, and says so to a login with a key alone', () => {
      const ran = cli(['replace', 'status', collection, '--profile', 'keyed']);
      expect(ran.status).toBe(1);
      expect(ran.stderr).toBe('trove: this command needs a portal sign-in (the API lets only a signed-in person do it): run `trove login --email <email> --profile keyed`\n');
    });
  });

  describe('collections delete and logout', () => {
    it('archives a collection with --yes, then logs out, revoking the key login created', async () => {
      expect(cli(['collections', 'delete', `${collection}-docs`]).status).toBe(2);
      expect(cliJson(['collections', 'delete', `${collection}-docs`, '--yes'])).toEqual({ collection: `${collection}-docs`, records_archived: 1 });

      expect(cliJson(['logout'])).toEqual({ profile: 'default', removed: true, key_revoked: true });
      const after = await trove.api('GET', '/api/v1/usage', { headers: bearer(key) });
      expect(after.status).toBe(401);
      const who = cli(['whoami']);
      expect(who.status).toBe(1);
      expect(who.stderr).toContain('not signed in');
    });
  });

  it("runs the README's command line walkthrough as written", async () => {
    const readme = readFileSync(resolve(__dirname, '../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## With the command line'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const lines = block.trim().split('\n');
    expect(lines[0]).toMatch(/^npx -y pnpm@10\.34\.8 trove login http:\/\/localhost:8080 --signup --email ada@example\.com$/);
    const home = join(work, 'readme');
    const walk = mkdtempSync(join(tmpdir(), 'trove-readme-'));
    try {
      for (const line of lines) {
        // As a person types them, at a terminal that asks the password: here it comes on stdin.
        const command = line
          .replace('npx -y pnpm@10.34.8 trove', `${process.execPath} ${LAUNCHER}`)
          .replace('http://localhost:8080', trove.baseUrl)
          .replace('ada@example.com', `readme-${randomUUID()}@example.com --password-stdin`);
        const run = () => spawnSync('sh', ['-c', command], { cwd: walk, env: { ...process.env, XDG_CONFIG_HOME: home }, input: `${password}\n`, encoding: 'utf8', timeout: 90_000 });
        // A person types the search a few seconds after the upload; here it may come before the records are indexed.
        if (line.includes(' search ')) await eventually(async () => expect(run().stdout).toMatch(/│ 1 +│ M10 hex bolt +│/), 30_000);
        const ran = run();
        expect({ line, status: ran.status, stderr: ran.stderr }).toEqual({ line, status: 0, stderr: '' });
        if (line.includes(' upload ')) expect(ran.stdout).toContain('3 records read');
        if (line.includes(' replace ')) expect(ran.stdout).toMatch(/Swapped "fasteners": generation 2 \(1 record\) is live/);
      }
      expect(readFileSync(join(walk, 'fasteners.csv'), 'utf8').split('\n')[0]).toMatch(/^id,name,/);
    } finally {
      rmSync(walk, { recursive: true, force: true });
    }
  });

  it('exits 3 when no Trove answers at the URL', async () => {
    const port = await closedPort();
    const ran = cli(['collections', 'list', '--url', `http://127.0.0.1:${port}`], { env: { TROVE_API_KEY: `sk_live_${'0'.repeat(64)}` } });
    expect(ran).toEqual({ status: 3, stdout: '', stderr: `trove: cannot reach http://127.0.0.1:${port} (connection refused): is Trove started there?\n` });
  });
});

/** A loopback port nothing listens on (one the system just gave and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  await new Promise((res) => server.close(res));
  return port;
}
