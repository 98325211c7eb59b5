import type { RequestHandler } from 'express';
import type { Cache } from '@trove/cache';
import { ERRORS, type Logger } from '@trove/platform';
import { clientKey, decide } from './domain/rate-limit';

export type LimitClass = 'search' | 'lookup';

const WINDOW_MS = 60_000;

export interface RateLimitOptions {
  cache: Cache;
  logger: Logger;
  limits: Record<LimitClass, number>;
}

/** Search and aggregate cost an index query each; everything else (collections, schema, lookup) is the cheaper class. */
export function limitClassOf(path: string): LimitClass {
  return /^\/(?:search|aggregate)(?:\/|$)/.test(path) ? 'search' : 'lookup';
}

/**
 * Per-IP limits of the Open API: every request under the router is counted in its class's one-minute window, and
 * every answer (4xx included) carries the X-RateLimit headers; past the limit it is 429 with Retry-After. The count
 * lives in the cache port, so replicas sharing Redis share it. If the counter store cannot answer, requests pass
 * (without the headers) rather than taking the API down with it.
 */
export function rateLimit(opts: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    const cls = limitClassOf(req.path);
    const limit = opts.limits[cls];
    let counted: { count: number; resetAt: number };
    try {
      counted = await opts.cache.hit(`open:rate:${cls}:${clientKey(req.ip)}`, WINDOW_MS);
    } catch (err) {
      opts.logger.warn({ err }, 'rate limit counter unavailable; request let through');
      return next();
    }
    const decision = decide(limit, counted.count, counted.resetAt, Date.now());
    for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
    if (!decision.allowed) {
      const seconds = decision.retryAfterSeconds;
      return next(ERRORS.tooManyRequests(`Rate limit exceeded. Try again in ${seconds} seconds.`, { 'Retry-After': String(seconds) }, 'open_address_rate'));
    }
    next();
  };
}
