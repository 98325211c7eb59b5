import cors from 'cors';
import type { Router } from '@trove/platform';

/**
 * What a page may read of an answer besides the simple headers: the request id, a stream's upload ids, the rate
 * limits, whether an upload was answered asynchronously, an MCP session.
 */
const EXPOSED = [
  'X-Request-Id',
  'X-Upload-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Preference-Applied',
  'Mcp-Session-Id',
];

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * Cross-origin requests from browser pages (docs/behaviour/gateway.md, "Browsers"). The Open API is public and
 * unauthenticated: any origin may call it, never with credentials. /api/v1 and /mcp answer only the origins of
 * CORS_ORIGINS (none by default); a page of any other origin gets no CORS headers, so its browser refuses the answer.
 * Preflights are answered here, before authentication, which a preflight (sent without credentials) would fail.
 */
export function corsRoutes(router: Router, origins: readonly string[]): void {
  router.use(
    '/open/v1',
    cors({ origin: '*', methods: ['GET', 'POST'], allowedHeaders: ['Content-Type'], exposedHeaders: EXPOSED, maxAge: PREFLIGHT_MAX_AGE_S }),
  );
  const allowed = new Set(origins);
  router.use(
    ['/api/v1', '/mcp'],
    cors({
      origin: (origin, answer) => answer(null, origin !== undefined && allowed.has(origin)),
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Content-Encoding', 'Prefer', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID', 'X-Webhook-Signature'],
      exposedHeaders: EXPOSED,
      maxAge: PREFLIGHT_MAX_AGE_S,
    }),
  );
}
