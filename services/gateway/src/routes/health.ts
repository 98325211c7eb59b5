import express, { type Express } from 'express';

/** The gateway's own health and metrics, also served under /api/v1 without a key. */
export const VERSIONED_ALIASES: Record<string, string> = {
  '/api/v1/health': '/health',
  '/api/v1/health/ready': '/health/ready',
  '/api/v1/metrics': '/metrics',
};

/**
 * Wraps the gateway app so the versioned health paths reach the platform's own /health, /health/ready and
 * /metrics handlers. (/api/v1/health/search is not an alias: it belongs to the search service.)
 */
export function withVersionedHealthPaths(app: Express): Express {
  const outer = express();
  outer.disable('x-powered-by');
  outer.use((req, _res, next) => {
    const q = req.url.indexOf('?');
    const path = (q === -1 ? req.url : req.url.slice(0, q)).replace(/(.)\/$/, '$1');
    const alias = VERSIONED_ALIASES[path];
    if (alias) req.url = alias + (q === -1 ? '' : req.url.slice(q));
    next();
  });
  outer.use(app);
  return outer;
}
