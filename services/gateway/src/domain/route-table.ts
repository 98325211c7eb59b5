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
  prefix: string;
  service: ServiceName;
  access: Access;
}

const none: Access = { kind: 'none' };
const key = (scope?: Scope): Access => ({ kind: 'key', scope });

/** Every public path the gateway forwards, and nothing else: the one place that says who owns what. */
export const ROUTES: readonly Route[] = [
  { prefix: '/api/v1/auth', service: 'auth', access: key('admin') },
  { prefix: '/api/v1/records', service: 'records', access: key('records') },
  { prefix: '/api/v1/collections', service: 'records', access: key('records') },
  { prefix: '/api/v1/entities', service: 'records', access: key('records') },
  { prefix: '/api/v1/admin', service: 'records', access: key('admin') },
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
  { prefix: '/api/v1/portal', service: 'auth', access: { kind: 'portal' } },
  { prefix: '/open/v1', service: 'open', access: none },
  { prefix: '/mcp', service: 'mcp', access: key('search') },
];

/** Longest prefix first, so a more specific entry wins over the one it sits under. */
const BY_SPECIFICITY = [...ROUTES].sort((a, b) => b.prefix.length - a.prefix.length);

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
  const route = BY_SPECIFICITY.find((r) => folded === r.prefix || folded.startsWith(`${r.prefix}/`));
  if (!route || !path.startsWith(route.prefix)) return undefined;
  if (upstreamPath(folded).split('/')[1] === 'internal') return undefined;
  return { route, path };
}
