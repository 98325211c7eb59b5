import type { Logger } from '@trove/platform';
import { MemoryCache } from './memory';
import type { Cache } from './port';
import { RedisCache } from './redis';

export interface CreateCacheOptions {
  /** REDIS_URL; without it the cache is in-process, which is right only when one process runs every service. */
  redisUrl?: string;
  /** Redis only: put before every key (default "trove:"). */
  keyPrefix?: string;
  /** In-process only: most values and most counters kept (default 10,000). */
  maxEntries?: number;
  /** Redis only: where connection trouble is reported. */
  logger?: Logger;
}

/** Chooses the adapter once from configuration. With a Redis URL, resolves only once Redis has answered a ping. */
export async function createCache(opts: CreateCacheOptions = {}): Promise<Cache> {
  if (!opts.redisUrl) return new MemoryCache({ maxEntries: opts.maxEntries });
  const cache = new RedisCache({ url: opts.redisUrl, keyPrefix: opts.keyPrefix, logger: opts.logger });
  try {
    await cache.connect();
  } catch (err) {
    // RedisCache's message names the server with its password masked; this adds the setting to fix.
    throw new Error(`REDIS_URL cannot be used: ${err instanceof Error ? err.message : String(err)}`);
  }
  return cache;
}
