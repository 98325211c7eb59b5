/**
 * The endpoint table of docs/api/endpoints.md, built from what answers rather than written by hand: every route
 * each service of the launcher registers (read from its express router), reached through the gateway's route table
 * (services/gateway/src/domain/route-table.ts), with the access that table demands. Routes the gateway never
 * forwards (every /internal route, a service's own /health unless a prefix reaches it as /open/v1 reaches open's) are
 * left out: no caller can reach them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROUTES, VERSIONED_ALIASES, matchRoute, upstreamPath, type Access, type Route } from '@trove/gateway-service';
import type { ServiceInstance } from '@trove/runtime';
import { createTestDatabase, startTestService } from '@trove/testing';
import { MODULES } from './modules';

const START_MARKER = '<!-- endpoints:start -->';
const END_MARKER = '<!-- endpoints:end -->';
/** The command that rewrites the table in docs/api/endpoints.md; the test that checks it names it. */
const REGENERATE =
  'WRITE_ENDPOINTS=1 node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js packages/launcher/src/endpoints.test.ts';

/** Settings under which billing mounts its cloud-only routes (no payment-provider call is made by mounting them). */
const CLOUD_BILLING = { DEPLOYMENT_MODE: 'cloud', STRIPE_SECRET_KEY: 'sk_test_endpoint_table', STRIPE_WEBHOOK_SECRET: 'whsec_endpoint_table' };

/** The public version roots a gateway prefix can start with; MCP's /mcp has none. */
const ROOTS = ['/api/v1', '/open/v1', ''];

interface ServiceRoute {
  method: string;
  path: string;
}

interface Endpoint {
  method: string;
  path: string;
  scope: string;
  service: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** The method and path of every route an express app registers, routers mounted without a path included. */
function routesOf(app: ServiceInstance['app']): ServiceRoute[] {
  const found: ServiceRoute[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const method of Object.keys(layer.route.methods)) {
          for (const path of paths) found.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

function scopeOf(access: Access): string {
  if (access.kind === 'none') return 'none';
  if (access.kind === 'portal') return 'portal sign-in';
  return access.scope ?? 'any key';
}

/** The gateway route a service path is reached by, and the path a caller sends; undefined when none reaches it. */
function publicPathOf(service: string, path: string): { route: Route; path: string } | undefined {
  for (const root of ROOTS) {
    const candidate = root !== '' && path === '/' ? root : `${root}${path}`;
    const match = matchRoute(candidate);
    if (match && match.route.service === service && upstreamPath(match.path) === path) return { route: match.route, path: candidate };
  }
  return undefined;
}

/**
 * Public endpoints of the services' routes, ordered by path then method. The gateway's own are the health and
 * metrics routes every service app has (createServiceApp), also answered under /api/v1 (routes/health.ts).
 */
function endpointsOf(routes: Record<string, ServiceRoute[]>): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const [service, list] of Object.entries(routes)) {
    for (const { method, path } of list) {
      // A route for every method on a path that has its own answers the other methods (405); it is no endpoint.
      if (method === 'ALL' && list.some((r) => r.path === path && r.method !== 'ALL')) continue;
      const reached = publicPathOf(service, path);
      if (reached) endpoints.push({ method, path: reached.path, scope: scopeOf(reached.route.access), service });
    }
  }
  const everyRoute = Object.values(routes).flat();
  for (const [alias, target] of Object.entries(VERSIONED_ALIASES)) {
    for (const { method } of everyRoute.filter((r) => r.path === target)) {
      endpoints.push({ method, path: target, scope: 'none', service: 'gateway' });
      endpoints.push({ method, path: alias, scope: 'none', service: 'gateway' });
    }
  }
  const key = (e: Endpoint) => `${e.path}\u0000${e.method}`;
  return [...new Map(endpoints.map((e) => [key(e), e])).values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The markdown between the markers of docs/api/endpoints.md. */
function renderEndpoints(endpoints: Endpoint[]): string {
  const served = new Set(endpoints.map((e) => publicPathOf(e.service, upstreamPath(e.path))?.route.prefix));
  const unserved = ROUTES.filter((r) => !served.has(r.prefix)).map((r) => `\`${r.prefix}\` (${r.service})`);
  const lines = [
    START_MARKER,
    `<!-- Generated from the gateway's route table and the services' routes; do not edit by hand. Regenerate: ${REGENERATE} -->`,
    '',
    '| Method | Path | Scope | Service |',
    '| --- | --- | --- | --- |',
    ...endpoints.map((e) => `| ${e.method} | \`${e.path}\` | ${e.scope} | ${e.service} |`),
    '',
    'Scope is what the gateway asks of the key for the path (an `admin` key holds every scope); `none` needs no key.',
    'The billing routes under `/api/v1/portal/billing` and `/api/v1/billing` answer only with `DEPLOYMENT_MODE=cloud` (404 otherwise).',
  ];
  if (unserved.length > 0) {
    lines.push(`The gateway's route table also forwards ${unserved.join(', ')}, where no service registers a route yet.`);
  }
  lines.push(END_MARKER);
  return lines.join('\n');
}

/**
 * Starts every service module the launcher holds but the gateway on one fresh database (not started: no consumers
 * or timers), reads their routes, stops them, and renders the table.
 */
async function generateEndpoints(): Promise<string> {
  const db = await createTestDatabase();
  try {
    const routes: Record<string, ServiceRoute[]> = {};
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
    return renderEndpoints(endpointsOf(routes));
  } finally {
    await db.drop();
  }
}

const ENDPOINTS_DOC = resolve(__dirname, '../../../docs/api/endpoints.md');

let table: string;

beforeAll(async () => {
  table = await generateEndpoints();
});

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

test("docs/api/endpoints.md's endpoint table is the one the gateway's route table and the services' routes give", () => {
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
