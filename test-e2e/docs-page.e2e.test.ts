import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { GATEWAY_DOCS, GATEWAY_DOCS_SCRIPT, OPEN_SEARCH, PORTAL_LOGIN, SEARCH, referenceDocument } from '@trove/contracts';
import { useTrove } from './support/system';

jest.setTimeout(120_000);

/** Debian's Chromium (.ci/run installs it where it is missing). */
const CHROMIUM = '/usr/bin/chromium';
/** What the page looked like once rendered, for a person to look at. */
const SCREENSHOT = join(tmpdir(), 'trove-docs-page.png');

/**
 * The status of a GET with these headers, asked outside the tests' fetch, which checks every answer against the
 * reference: a 304 to a conditional request is HTTP's, not one the API lists.
 */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).once('error', reject);
  });
}

const trove = useTrove();

describe('the API reference page at /docs, without a key', () => {
  it('answers the page as HTML under a policy that lets it load only files of its own origin, and no inline script', async () => {
    const res = await trove.api('GET', GATEWAY_DOCS.path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    // Every URL of the page is relative, so it works behind a path prefix too.
    expect(res.text).toContain('spec-url="api/v1/openapi.json"');
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves the renderer as JavaScript, gzipped to a client that takes it, and 304 to a request naming its ETag', async () => {
    const script = GATEWAY_DOCS_SCRIPT.path;
    const res = await trove.api('GET', script);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.text).toContain('Redoc');
    expect(res.text).not.toContain('cdn.redoc.ly');
    const gzipped = await fetch(`${trove.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    await gzipped.arrayBuffer();
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const etag = gzipped.headers.get('etag')!;
    await expect(statusOf(`${trove.baseUrl}${script}`, { 'accept-encoding': 'gzip', 'if-none-match': etag })).resolves.toBe(304);
    await expect(statusOf(`${trove.baseUrl}${script}`, { 'if-none-match': etag })).resolves.toBe(200);
  });

  it('answers the page at /docs/ too, its URLs relative to that folder', async () => {
    const res = await trove.api('GET', `${GATEWAY_DOCS.path}/`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('spec-url="../api/v1/openapi.json"');
  });

  describe('in a browser', () => {
    let userDataDir: string;
    let context: BrowserContext;
    const requests: string[] = [];
    const problems: string[] = [];

    beforeAll(async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
      userDataDir = mkdtempSync(join(tmpdir(), 'trove-docs-chromium-'));
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1400, height: 1000 },
      });
      // The context's, so that requests of the page's workers count too.
      context.on('request', (request) => requests.push(request.url()));
      context.on('console', (message) => {
        // A refused load (a CSP violation included) or a failed request is logged as an error.
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      context.on('weberror', (error) => problems.push(`page error: ${error.error().message}`));
    });

    afterAll(async () => {
      await context?.close();
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    });

    it('renders the reference of every operation, loading nothing from another host', async () => {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${trove.baseUrl}${GATEWAY_DOCS.path}`);
      await page.getByRole('heading', { level: 1, name: /^Trove API/ }).waitFor({ timeout: 60_000 });

      for (const { summary } of [SEARCH, PORTAL_LOGIN, OPEN_SEARCH, GATEWAY_DOCS]) {
        await expect(page.getByRole('heading', { name: summary }).count()).resolves.toBeGreaterThan(0);
      }
      const paths = referenceDocument('all').paths as Record<string, Record<string, unknown>>;
      const operations = Object.values(paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
      await expect(page.locator('[data-section-id*="/operation/"]').count()).resolves.toBe(operations);
      // The search box is Redoc's own index, built in a worker.
      await page.getByPlaceholder('Search...').fill('portal');
      const found = page.locator('[data-role="search:results"]').getByRole('menuitem', { name: PORTAL_LOGIN.summary });
      await found.click();
      await page.waitForURL(/#tag\/auth\/operation\/postPortalAuthLogin$/);
      await page.getByText('/api/v1/portal/auth/login').first().waitFor();

      await page.screenshot({ path: SCREENSHOT });
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);

      const origin = new URL(trove.baseUrl).origin;
      // blob: URLs (the worker's) carry the origin that made them.
      const elsewhere = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
      expect(elsewhere).toEqual([]);
      expect(requests).toEqual(expect.arrayContaining([`${origin}/api/v1/openapi.json`]));
      expect(problems).toEqual([]);
    });

    it('renders it from /docs/ as well', async () => {
      const page = await context.newPage();
      await page.goto(`${trove.baseUrl}${GATEWAY_DOCS.path}/`);
      await page.getByRole('heading', { level: 1, name: /^Trove API/ }).waitFor({ timeout: 60_000 });
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});
