/**
 * The endpoint table of docs/api/endpoints.md, written from the endpoint declarations (`API_ENDPOINTS` of
 * @trove/contracts), and the check that the declarations are what answers: every route a service registers that the
 * gateway forwards (read from each service's express router, reached through the gateway's route table) is declared,
 * and every declared endpoint is registered by its service and reached through the gateway. Routes the gateway never
 * forwards (every /internal route, a service's own /health unless a root reaches it as /open/v1 reaches open's) are
 * left out: no caller can reach them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { API_ENDPOINTS, publicPaths, type Access, type Endpoint } from '@trove/contracts';
import { matchRoute, upstreamPath } from '@trove/gateway-service';
import type { ServiceInstance } from '@trove/runtime';
import { createTestDatabase, startTestService } from '@trove/testing';
import { MODULES } from './modules';

const START_MARKER = '<!-- endpoints:start -->';
const END_MARKER = '<!-- endpoints:end -->';
/** The command that rewrites the table in docs/api/endpoints.md; the test that checks it names it. */
const REGENERATE =
  'WRITE_ENDPOINTS=1 node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js apps/trove/src/endpoints.test.ts';

/** Settings under which billing mounts its cloud-only routes (no payment-provider call is made by mounting them). */
const CLOUD_BILLING = { DEPLOYMENT_MODE: 'cloud', STRIPE_SECRET_KEY: 'sk_test_endpoint_table', STRIPE_WEBHOOK_SECRET: 'whsec_endpoint_table' };

/** The public version roots a service path can be reached under; MCP's /mcp has none. */
const ROOTS = ['/api/v1', '/open/v1', ''];

interface Row {
  method: string;
  path: string;
  access: string;
  service: string;
  summary: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD path` of every route an express app registers, routers mounted without a path included. */
function routesOf(app: ServiceInstance['app']): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const methods = Object.keys(layer.route.methods);
        for (const method of methods) {
          // A route for every method on a path that has its own answers the other methods (405); it is no endpoint.
          if (method === '_all') continue;
          for (const path of paths) found.push(`${method.toUpperCase()} ${path}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

function accessOf(access: Access): string {
  if (access.kind === 'none') return 'none';
  if (access.kind === 'portal') return 'portal sign-in';
  return access.scope ?? 'any key';
}

/** Whether the gateway forwards some public spelling of the service path to that service, unchanged. */
function reachable(service: string, path: string): boolean {
  return ROOTS.some((root) => {
    const candidate = root !== '' && path === '/' ? root : `${root}${path}`;
    const match = matchRoute(candidate);
    return match !== undefined && match.route.service === service && upstreamPath(match.path) === path;
  });
}

/** One row per public path of every declared endpoint, ordered by path then method. */
function rowsOf(endpoints: readonly Endpoint[]): Row[] {
  const rows = endpoints.flatMap((e) =>
    publicPaths(e).map((path) => ({ method: e.method, path, access: accessOf(e.exposed!.access), service: e.service, summary: e.summary })),
  );
  const key = (r: Row) => `${r.path}\u0000${r.method}`;
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The markdown between the markers of docs/api/endpoints.md. */
function renderEndpoints(rows: Row[]): string {
  return [
    START_MARKER,
    `<!-- Generated from the endpoint declarations (API_ENDPOINTS in packages/contracts/src/api); do not edit by hand. Regenerate: ${REGENERATE} -->`,
    '',
    '| Method | Path | Scope | Service | What it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.method} | \`${r.path}\` | ${r.access} | ${r.service} | ${r.summary.replaceAll('|', '\\|')} |`),
    '',
    'Scope is what the gateway asks of the key for the path (an `admin` key holds every scope); `none` needs no key, `portal sign-in` a portal token.',
    'The billing routes under `/api/v1/portal/billing` and `/api/v1/billing` answer only with `DEPLOYMENT_MODE=cloud` (404 otherwise).',
    END_MARKER,
  ].join('\n');
}

/**
 * `METHOD path` of every route each service module but the gateway registers, each started on one fresh database
 * (not started: no consumers or timers) and stopped again.
 */
async function registeredRoutes(): Promise<Record<string, string[]>> {
  const db = await createTestDatabase();
  try {
    const routes: Record<string, string[]> = {};
    for (const module of MODULES.filter((m) => m.name !== 'gateway')) {
      // Billing registers its payment routes only in cloud mode; the table shows them (and says so below).
      const config = module.name === 'billing' ? CLOUD_BILLING : undefined;
      const svc = await startTestService(module, { database: db.database, start: false, config });
      try {
        routes[module.name] = routesOf(svc.instance.app);
      } finally {
        await svc.stop();
      }
    }
    return routes;
  } finally {
    await db.drop();
  }
}

const exposed = API_ENDPOINTS.filter((e) => e.exposed);
const table = renderEndpoints(rowsOf(exposed));
let routes: Record<string, string[]>;

beforeAll(async () => {
  routes = await registeredRoutes();
});

test('every route a service registers that the gateway forwards is declared, with its service', () => {
  const declared = new Set(exposed.map((e) => `${e.service} ${e.method} ${e.path}`));
  const undeclared = Object.entries(routes).flatMap(([service, list]) =>
    list.filter((route) => reachable(service, route.split(' ')[1]!) && !declared.has(`${service} ${route}`)).map((route) => `${service}: ${route}`),
  );
  expect(undeclared).toEqual([]);
});

test('every declared endpoint is registered by its service and reached through the gateway', () => {
  const missing = exposed
    .filter((e) => e.service !== 'gateway')
    .filter((e) => !routes[e.service]?.includes(`${e.method} ${e.path}`) || !reachable(e.service, e.path))
    .map((e) => `${e.service}: ${e.method} ${e.path}`);
  expect(missing).toEqual([]);
});

test('a public path is declared once', () => {
  const rows = rowsOf(exposed).map((r) => `${r.method} ${r.path}`);
  expect(rows.filter((r, i) => rows.indexOf(r) !== i)).toEqual([]);
});

const ENDPOINTS_DOC = resolve(__dirname, '../../../docs/api/endpoints.md');

/** The document's endpoint block, markers included, or undefined when the markers are missing. */
function blockOf(doc: string): { start: number; end: number } | undefined {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  return start === -1 || end < start ? undefined : { start, end: end + END_MARKER.length };
}

test('the table lists what a caller reaches through the gateway, and no /internal route', () => {
  expect(table).toContain('| POST | `/api/v1/upload/:collection/:record_type/batch` | upload | ingestion |');
  expect(table).toContain('| POST | `/api/v1/ingest/:vertical/:entity_type/batch` | upload | ingestion |');
  expect(table).toContain('| GET | `/open/v1/search` | none | open |');
  expect(table).toContain('| POST | `/mcp` | search | mcp |');
  expect(table).toContain('| GET | `/api/v1/health` | none | gateway |');
  expect(table).not.toMatch(/internal/i);
});

test("docs/api/endpoints.md's endpoint table is the one the declarations give", () => {
  const doc = readFileSync(ENDPOINTS_DOC, 'utf8');
  const block = blockOf(doc);
  if (process.env.WRITE_ENDPOINTS === '1' && block) {
    writeFileSync(ENDPOINTS_DOC, doc.slice(0, block.start) + table + doc.slice(block.end));
    return;
  }
  const current = block ? doc.slice(block.start, block.end) : '(no endpoint block in docs/api/endpoints.md)';
  if (current !== table) {
    throw new Error(`docs/api/endpoints.md's endpoint table is out of date; regenerate it with\n  ${REGENERATE}\n\nExpected:\n${table}\n\nFound:\n${current}`);
  }
});
