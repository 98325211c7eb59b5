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

/**
 * Refuses paths a service could read differently from the gateway: dot segments (raw or percent-encoded),
 * backslashes, bad encodings, and anything that would land on a service's /internal routes.
 */
function isForwardable(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  if (/[\\\0]/.test(decoded)) return false;
  if (decoded.split('/').some((s) => s === '.' || s === '..')) return false;
  return upstreamPath(decoded).split('/')[1] !== 'internal';
}

/** The route owning a request path (no query string), or undefined when the gateway must answer 404. */
export function matchRoute(path: string): Route | undefined {
  if (!isForwardable(path)) return undefined;
  return BY_SPECIFICITY.find((r) => path === r.prefix || path.startsWith(`${r.prefix}/`));
}
