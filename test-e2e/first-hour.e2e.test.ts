import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from '@trove/testing';
import { portalAuth, signUp } from './support/portal';
import { LAUNCHER, PRODUCTION, bearer, devTenant, startTrove, useTrove, type ApiResponse } from './support/system';

jest.setTimeout(120_000);

/**
 * What a person meets in their first hour with Trove, through the started system: a start log that says what to do
 * next, a body sent without `Content-Type: application/json` told so, a search of a collection that does not exist
 * saying so, and production refusing a placeholder secret in one line.
 */

/** Lines without the colours a terminal would get (the harness reads a pipe, so there are none; FORCE_COLOR adds them). */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
const port = (baseUrl: string) => new URL(baseUrl).port;

describe('in development (the README first command)', () => {
  const trove = useTrove({ apart: false });
  const api = trove.api;
  let key: string;

  beforeAll(async () => {
    key = await trove.keyFor(randomUUID(), ['admin']);
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(key),
      body: { name: 'M8 hex bolt', collection: 'fasteners', record_type: 'product', collection_data: { standard: 'DIN 933' } },
    });
    expect(created.status).toBe(201);
  });

  describe('the start log', () => {
    it('is human-readable text, not JSON', () => {
      const lines = plain(trove.output()).split('\n').filter(Boolean);
      expect(lines.find((l) => l.includes('Trove is up'))).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(trove\): Trove is up \(/);
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    });

    it('ends with the next steps: the URL, the reference, and the development first key, which work as said', async () => {
      const output = plain(trove.output());
      const next = output.slice(output.indexOf('Next steps (ENV=development):'));
      expect(output.indexOf('Next steps')).toBeGreaterThan(output.indexOf('Trove is up'));
      const url = `http://localhost:${port(trove.baseUrl)}`;
      expect(next).toContain(`API reference: ${url}/docs (OpenAPI document: ${url}/api/v1/openapi.json)`);
      expect(next).toContain(`First key: curl -s ${url}/api/v1/auth/keys -H "X-Tenant-Id: $(node -e 'console.log(crypto.randomUUID())')"`);
      expect(next).toContain(`sign up in the portal (POST ${url}/api/v1/portal/auth/signup, then POST /api/v1/portal/keys)`);
      expect(next).toContain('README.md, "A first session"');

      expect((await api('GET', '/docs')).status).toBe(200);
      expect((await api('GET', '/api/v1/openapi.json')).status).toBe(200);
      const first = await api('POST', '/api/v1/auth/keys', { headers: devTenant(randomUUID()), body: { name: 'first', scopes: ['admin'] } });
      expect(first.status).toBe(201);
    });
  });

  describe('a JSON route sent a body without Content-Type: application/json', () => {
    const send = (path: string, type: string | undefined, body: unknown, headers: Record<string, string> = bearer(key)) =>
      fetch(`${trove.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
        // Bytes, so fetch adds no Content-Type of its own.
        body: Buffer.from(JSON.stringify(body)),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { detail: string } }));
    const record = { name: 'M10 hex nut', collection: 'fasteners', record_type: 'product' };

    it.each([
      ['/api/v1/records', record],
      ['/api/v1/search/fasteners', { query: 'DIN 933' }],
    ])('answers 415 at %s, saying to send Content-Type: application/json (text/plain, none)', async (path, body) => {
      const asText = await send(path, 'text/plain', body);
      expect(asText.status).toBe(415);
      expect(asText.body.detail).toBe('This route reads a JSON body, and this one was sent as text/plain; send it with Content-Type: application/json');
      const untyped = await send(path, undefined, body);
      expect(untyped.status).toBe(415);
      expect(untyped.body.detail).toContain('was sent without a Content-Type; send it with Content-Type: application/json');
    });

    it("names curl -d's form encoding, the commonest way to get here", async () => {
      const res = await send('/api/v1/search/fasteners', 'application/x-www-form-urlencoded', { query: 'DIN 933' });
      expect(res.status).toBe(415);
      expect(res.body.detail).toContain("(what curl -d sends unless given -H 'Content-Type: application/json')");
    });

    it('answers the same on the portal and the Open API, and takes the same body sent as JSON', async () => {
      const person = await signUp(api);
      expect((await send('/api/v1/portal/search/fasteners', 'text/plain', { query: 'bolt' }, portalAuth(person.token))).status).toBe(415);
      expect((await send('/open/v1/search', 'text/plain', { query: 'bolt' }, {})).status).toBe(415);
      expect((await send('/api/v1/search/fasteners', 'application/json', { query: 'DIN 933' })).status).toBe(200);
    });
  });

  describe('a search of a collection that does not exist', () => {
    const hint = (name: string) =>
      `There is no collection "${name}": none of your records is in it (collection names are case-sensitive). ` +
      'GET /api/v1/collections lists your collections (GET /api/v1/portal/collections in the portal).';
    const expectMissing = (res: ApiResponse, name: string) => {
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([]);
      expect(res.body.metadata).toMatchObject({ collection_exists: false, hint: hint(name) });
    };

    it('says so in the metadata of POST and GET /search/{collection}, and the collection list is where it says', async () => {
      expectMissing(await api('POST', '/api/v1/search/fastners', { headers: bearer(key), body: { query: 'DIN 933' } }), 'fastners');
      expectMissing(await api('GET', '/api/v1/search/Fasteners?q=bolt', { headers: bearer(key) }), 'Fasteners');
      const listed = await api('GET', '/api/v1/collections', { headers: bearer(key) });
      expect(listed.body.collections.map((c: { name: string }) => c.name)).toEqual(['fasteners']);
    });

    it('tells it from a collection that exists where nothing matched', async () => {
      const res = await api('POST', '/api/v1/search/fasteners', { headers: bearer(key), body: { query: 'hammer' } });
      expect(res.body.results).toEqual([]);
      expect(res.body.metadata.collection_exists).toBe(true);
      expect(res.body.metadata).not.toHaveProperty('hint');
    });

    it("says so in the portal's search", async () => {
      const person = await signUp(api);
      expectMissing(await api('POST', '/api/v1/portal/search/fasteners', { headers: portalAuth(person.token), body: { query: 'bolt' } }), 'fasteners');
    });

    it('says so in the Open API of a collection without public records', async () => {
      const res = await api('GET', '/open/v1/search/fasteners?q=bolt');
      expect(res.status).toBe(200);
      expect(res.body.metadata).toMatchObject({
        collection_exists: false,
        hint: 'No public record is in a collection "fasteners" (collection names are case-sensitive); GET /open/v1/collections lists the collections with public records.',
      });
    });
  });
});

describe('in production', () => {
  it('logs JSON lines, whose start log ends with the production first key: the CLI', async () => {
    const trove = await startTrove({ env: { ...PRODUCTION, LOG_LEVEL: 'info' } });
    try {
      // The gateway answers ready a moment before its process has written the start log's last lines.
      await eventually(async () => expect(trove.output()).toContain('Next steps'));
      const lines = trove.output().split('\n').filter(Boolean);
      const entries = lines.map((line) => JSON.parse(line) as { level: number; msg: string; url?: string; reference?: string });
      const upAt = entries.findIndex((e) => e.msg.startsWith('Trove is up'));
      const next = entries.findIndex((e) => e.msg.startsWith('Next steps (ENV=production):'));
      expect(upAt).toBeGreaterThanOrEqual(0);
      expect(next).toBeGreaterThan(upAt);
      const url = `http://localhost:${port(trove.baseUrl)}`;
      expect(entries[next]).toMatchObject({ level: 30, url, reference: `${url}/docs`, openapi: `${url}/api/v1/openapi.json` });
      expect(entries[next]!.msg).toContain('First key: node apps/trove/dist/main.js create-tenant --name "<name>" prints a new tenant\'s admin key once');
      expect(entries[next]!.msg).toContain('while this process is stopped');
      expect(entries[next]!.msg).not.toContain('X-Tenant-Id');
    } finally {
      await trove.stop();
    }
  });

  it('refuses to start with a placeholder secret: exit 1, one line naming the variable, no stack trace', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trove-first-hour-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, ...PRODUCTION, JWT_SECRET: 'change-me-to-32-or-more-random-characters-too', DATA_DIR: dataDir };
      delete env.DATABASE_URL;
      const run = spawnSync(process.execPath, [LAUNCHER, '--target=all'], { cwd: resolve(__dirname, '..'), env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toEqual([
        'Invalid configuration:',
        '  JWT_SECRET: looks like a placeholder (it contains "change-me"), refused when ENV=production; set a random value of 32+ characters (openssl rand -hex 32)',
      ]);
      expect(run.stderr).not.toContain('change-me-to-32');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
