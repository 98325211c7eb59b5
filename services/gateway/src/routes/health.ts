import { GATEWAY_API, publicPaths } from '@trove/contracts';

/**
 * The gateway's own health and metrics (GATEWAY_HEALTH, GATEWAY_HEALTH_READY, GATEWAY_METRICS) are the ones every
 * service app answers (createServiceApp's /health, /health/ready and /metrics). Their declarations also expose them
 * under /api/v1 without a key: each such path is answered as the declared one (createServiceApp's aliases), e.g.
 * /api/v1/health as /health. (/api/v1/health/search is not an alias: it belongs to the search service.)
 */
export const VERSIONED_ALIASES: Record<string, string> = Object.fromEntries(
  GATEWAY_API.flatMap((e) =>
    publicPaths(e)
      .filter((path) => path !== e.path)
      .map((path) => [path, e.path]),
  ),
);
