/**
 * The gateway's own health and metrics, also served under /api/v1 without a key (createServiceApp's aliases).
 * (/api/v1/health/search is not an alias: it belongs to the search service.)
 */
export const VERSIONED_ALIASES: Record<string, string> = {
  '/api/v1/health': '/health',
  '/api/v1/health/ready': '/health/ready',
  '/api/v1/metrics': '/metrics',
};
