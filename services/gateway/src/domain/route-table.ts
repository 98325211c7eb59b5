import type { Scope, ServiceName } from '@trove/platform';

/** What a caller must present to use a route. */
export type Access =
  /** No credential; the request is forwarded with an anonymous identity. */
  | { kind: 'none' }
  /** An API key (or, in development, X-Tenant-Id); with a scope unless any valid key will do. */
  | { kind: 'key'; scope?: Scope }
  /** A portal sign-in token. */
  | { kind: 'portal' };

export interface Route {
  /** Whole path segments; a `*` segment stands for exactly one segment of any spelling (a collection name). */
  prefix: string;
  service: ServiceName;
  access: Access;
}

const none: Access = { kind: 'none' };
const key = (scope?: Scope): Access => ({ kind: 'key', scope });
const portal: Access = { kind: 'portal' };

/** Every public path the gateway forwards, and nothing else: the one place that says who owns what. */
export const ROUTES: readonly Route[] = [
  { prefix: '/api/v1/auth', service: 'auth', access: key('admin') },
  { prefix: '/api/v1/records', service: 'records', access: key('records') },
  { prefix: '/api/v1/collections', service: 'records', access: key('records') },
  { prefix: '/api/v1/entities', service: 'records', access: key('records') },
  { prefix: '/api/v1/admin', service: 'records', access: key('admin') },
  // Tenants are auth's; the rest of admin (stats, reindex) is about records.
  { prefix: '/api/v1/admin/tenants', service: 'auth', access: key('admin') },
  { prefix: '/api/v1/export', service: 'records', access: key('admin') },
  { prefix: '/api/v1/upload', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/uploads', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/webhooks', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/ingest', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/ingestions', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/pipeline', service: 'ingestion', access: key('upload') },
  { prefix: '/api/v1/search', service: 'search', access: key('search') },
  { prefix: '/api/v1/aggregate', service: 'search', access: key('search') },
  { prefix: '/api/v1/health/search', service: 'search', access: none },
  { prefix: '/api/v1/usage', service: 'billing', access: key() },
  { prefix: '/api/v1/connectors', service: 'connector', access: key('admin') },
  { prefix: '/api/v1/billing/payment/webhook', service: 'billing', access: none },
  // Portal routes accept only a portal sign-in token, except sign-in itself, which is how one is obtained.
  { prefix: '/api/v1/portal/auth', service: 'auth', access: none },
  { prefix: '/api/v1/portal/keys', service: 'auth', access: portal },
  { prefix: '/api/v1/portal/account', service: 'auth', access: portal },
  { prefix: '/api/v1/portal/quickstart', service: 'auth', access: portal },
  { prefix: '/api/v1/portal/usage', service: 'billing', access: portal },
  { prefix: '/api/v1/portal/billing', service: 'billing', access: portal },
  { prefix: '/api/v1/portal/analytics', service: 'open', access: portal },
  { prefix: '/api/v1/portal/collections', service: 'records', access: portal },
  // The replace upload is a file upload, parsed by ingestion; the rest of a replace (status, swap, cancel) is records'.
  { prefix: '/api/v1/portal/collections/*/replace', service: 'ingestion', access: portal },
  { prefix: '/api/v1/portal/records', service: 'records', access: portal },
  { prefix: '/api/v1/portal/entities', service: 'records', access: portal },
  { prefix: '/api/v1/portal/verticals', service: 'records', access: portal },
  { prefix: '/api/v1/portal/search', service: 'search', access: portal },
  { prefix: '/api/v1/portal/upload', service: 'ingestion', access: portal },
  { prefix: '/open/v1', service: 'open', access: none },
  { prefix: '/mcp', service: 'mcp', access: key('search') },
];

interface CompiledRoute {
  route: Route;
  segments: string[];
}

const wildcards = (segments: string[]) => segments.filter((s) => s === '*').length;

/**
 * Most specific first: more segments first, and among as many, fewer `*` first, so an entry wins over every entry it
 * sits under (the replace upload's entry over `/api/v1/portal/collections`).
 */
const BY_SPECIFICITY: CompiledRoute[] = ROUTES.map((route) => ({ route, segments: route.prefix.split('/') })).sort(
  (a, b) => b.segments.length - a.segments.length || wildcards(a.segments) - wildcards(b.segments),
);

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
