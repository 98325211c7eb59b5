import { API_ENDPOINTS, publicPaths, type Access, type Endpoint, type ServiceName } from '@trove/contracts';

export type { Access };

export interface Route {
  /** Whole path segments; a `*` segment stands for exactly one segment of any spelling (a collection name). */
  prefix: string;
  service: ServiceName;
  access: Access;
}

/**
 * The areas of public paths the gateway forwards, and nothing else: each a whole-segment prefix, `*` standing for one
 * segment. Which service owns an area, and what a caller must present to use it, are not written here: they are the
 * declarations' of the endpoints under it (API_ENDPOINTS of @trove/contracts), which must agree (routesOf). The
 * gateway's own endpoints (health, metrics) are served by the gateway and are no area.
 */
const AREAS: readonly string[] = [
  '/api/v1/auth',
  '/api/v1/records',
  '/api/v1/collections',
  // A collection's search settings are search's; the rest of a collection is records'.
  '/api/v1/collections/*/settings',
  '/api/v1/entities',
  '/api/v1/admin',
  // Tenants are auth's; the rest of admin (stats, reindex) is about records.
  '/api/v1/admin/tenants',
  '/api/v1/export',
  '/api/v1/upload',
  '/api/v1/uploads',
  '/api/v1/webhooks',
  '/api/v1/ingest',
  '/api/v1/ingestions',
  '/api/v1/pipeline',
  '/api/v1/search',
  '/api/v1/multi-search',
  '/api/v1/aggregate',
  '/api/v1/health/search',
  '/api/v1/usage',
  '/api/v1/connectors',
  '/api/v1/billing/payment/webhook',
  // Portal routes accept only a portal sign-in token, except sign-in itself, which is how one is obtained.
  '/api/v1/portal/auth',
  '/api/v1/portal/keys',
  '/api/v1/portal/account',
  '/api/v1/portal/quickstart',
  '/api/v1/portal/usage',
  '/api/v1/portal/billing',
  '/api/v1/portal/analytics',
  '/api/v1/portal/collections',
  // The replace upload is a file upload, parsed by ingestion; the rest of a replace (status, swap, cancel) is records'.
  '/api/v1/portal/collections/*/replace',
  '/api/v1/portal/collections/*/settings',
  '/api/v1/portal/records',
  '/api/v1/portal/entities',
  '/api/v1/portal/verticals',
  '/api/v1/portal/search',
  '/api/v1/portal/multi-search',
  '/api/v1/portal/upload',
  '/api/v1/portal/uploads',
  '/open/v1',
  '/mcp',
];

const wildcards = (segments: string[]) => segments.filter((s) => s === '*').length;

/** Most specific first: more segments first, and among as many, fewer `*` first, so an area wins over every area it sits under. */
function bySpecificity<T extends { segments: string[] }>(list: T[]): T[] {
  return list.sort((a, b) => b.segments.length - a.segments.length || wildcards(a.segments) - wildcards(b.segments));
}

const sameAccess = (a: Access, b: Access) => a.kind === b.kind && (a.kind !== 'key' || b.kind !== 'key' || a.scope === b.scope);

/**
 * Each area with the service and access of the declared endpoints under it (an endpoint belongs to the most specific
 * area over its path, a `:name` segment matching a `*`). Refuses, when the gateway loads, a table that does not fit
 * the declarations: an exposed endpoint under no area, an area with no endpoint, or an area whose endpoints disagree.
 */
function routesOf(areas: readonly string[], endpoints: readonly Endpoint[]): Route[] {
  const compiled = bySpecificity(areas.map((prefix) => ({ prefix, segments: prefix.split('/') })));
  const owners = new Map<string, { service: ServiceName; access: Access; by: string }>();
  for (const e of endpoints) {
    if (!e.exposed || e.service === 'gateway') continue;
    for (const path of publicPaths(e)) {
      const segments = path.split('/');
      const by = `${e.method} ${path}`;
      const area = compiled.find((a) => startsWithSegments(segments, a.segments, (s, p) => s === p));
      if (!area) throw new Error(`The gateway's route table has no area for ${by} (${e.service})`);
      const owner = owners.get(area.prefix);
      if (owner && (owner.service !== e.service || !sameAccess(owner.access, e.exposed.access))) {
        throw new Error(`The endpoints under ${area.prefix} disagree on who answers or who may call: ${owner.by} and ${by}`);
      }
      owners.set(area.prefix, owner ?? { service: e.service, access: e.exposed.access, by });
    }
  }
  return areas.map((prefix) => {
    const owner = owners.get(prefix);
    if (!owner) throw new Error(`The gateway's route table has an area with no declared endpoint: ${prefix}`);
    return { prefix, service: owner.service, access: owner.access };
  });
}

/** Every public path the gateway forwards, with the service that answers it and what a caller must present. */
export const ROUTES: readonly Route[] = routesOf(AREAS, API_ENDPOINTS);

interface CompiledRoute {
  route: Route;
  segments: string[];
}

/** The replace upload's entry wins over `/api/v1/portal/collections`. */
const BY_SPECIFICITY: CompiledRoute[] = bySpecificity(ROUTES.map((route) => ({ route, segments: route.prefix.split('/') })));

/** Whether the path's first segments are the prefix's: `*` takes any one non-empty segment, the others as `same` says. */
function startsWithSegments(path: string[], prefix: string[], same: (pathSegment: string, prefixSegment: string) => boolean): boolean {
  if (path.length < prefix.length) return false;
  return prefix.every((p, i) => (p === '*' ? path[i] !== '' : same(path[i]!, p)));
}

/** The services the gateway forwards to. */
export const UPSTREAM_SERVICES: ServiceName[] = [...new Set(ROUTES.map((r) => r.service))];

const VERSION_ROOT = /^\/(?:api|open)\/v1(?=[/?]|$)/;

/** The path a service sees: without /api/v1 or /open/v1 (MCP's /mcp/ stays as it is). Keeps a query string. */
export function upstreamPath(url: string): string {
  const stripped = url.replace(VERSION_ROOT, '');
  return stripped === '' || stripped.startsWith('?') ? `/${stripped}` : stripped;
}

/** Characters RFC 3986 calls unreserved: percent-encoding them changes nothing, so they are decoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * One segment in its canonical spelling, or undefined when a service could read it differently from the gateway:
 * a bad escape, an escaped '/', '\\' or '%' (which a second decoding would turn into a separator or an escape),
 * a raw backslash (some servers treat it as '/'), control characters, and dot segments in any encoding.
 */
function canonicalSegment(segment: string): string | undefined {
  let canonical = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\' || c < ' ' || c === '\x7f') return undefined;
    if (c !== '%') {
      canonical += c;
      continue;
    }
    const hex = segment.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
    const decoded = String.fromCharCode(parseInt(hex, 16));
    if (decoded === '/' || decoded === '\\' || decoded === '%' || decoded < ' ' || decoded === '\x7f') return undefined;
    canonical += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
    i += 2;
  }
  return canonical === '.' || canonical === '..' ? undefined : canonical;
}

/**
 * The one spelling of a request path that the gateway routes and forwards: repeated slashes collapsed and
 * unreserved characters decoded. Undefined for a path it refuses (see canonicalSegment).
 */
export function normalisePath(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const segments: string[] = [];
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const segment = canonicalSegment(parts[i]!);
    if (segment === undefined) return undefined;
    // An empty segment is a repeated slash, except the last one, which keeps a trailing slash (MCP's /mcp/).
    if (segment !== '' || i === parts.length - 1) segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

export interface Match {
  route: Route;
  /** The normalised path (no query string) to forward, before upstreamPath strips the version root. */
  path: string;
}

/**
 * The route owning a request path (no query string) and the path to forward, or undefined when the gateway must
 * answer 404. Services route case-insensitively, so the gateway compares case-insensitively too, and refuses a
 * path that spells its route's prefix in another case (one spelling, one decision) or that a service would route
 * to its /internal routes in any spelling.
 */
export function matchRoute(rawPath: string): Match | undefined {
  const path = normalisePath(rawPath);
  if (path === undefined) return undefined;
  const folded = path.toLowerCase();
  const segments = path.split('/');
  const match = BY_SPECIFICITY.find((r) => startsWithSegments(segments, r.segments, (s, p) => s.toLowerCase() === p));
  if (!match || !startsWithSegments(segments, match.segments, (s, p) => s === p)) return undefined;
  if (upstreamPath(folded).split('/')[1] === 'internal') return undefined;
  return { route: match.route, path };
}
