import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisCache, type RedisCacheOptions } from '../redis';

export const redisUrl = process.env.REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Describe blocks are declared synchronously, so the probe runs in a child process. It expects PONG, so something else
 * listening on the port does not pass for Redis.
 */
export function redisReachable(url: string = redisUrl): boolean {
  const probe = `
    const { Redis } = require('ioredis');
    const redis = new Redis(${JSON.stringify(url)}, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    redis.connect().then(() => redis.ping()).then((answer) => process.exit(answer === 'PONG' ? 0 : 1), () => process.exit(1));`;
  return spawnSync(process.execPath, ['-e', probe], { timeout: 5_000, cwd: __dirname }).status === 0;
}

export interface RedisHarness {
  cache: RedisCache;
  keyPrefix: string;
  /** Closes the cache (it may already be closed) and deletes every key under its prefix. */
  close(): Promise<void>;
}

/** A connected cache under a key prefix of its own, so runs sharing one Redis never meet. */
export async function openRedisHarness(opts: Partial<RedisCacheOptions> = {}): Promise<RedisHarness> {
  const keyPrefix = `trove-test:${randomUUID()}:`;
  const cache = new RedisCache({ url: redisUrl, keyPrefix, ...opts });
  await cache.connect();
  return {
    cache,
    keyPrefix,
    async close() {
      await cache.close();
      await deleteKeys(`${keyPrefix}*`);
    },
  };
}

async function deleteKeys(pattern: string): Promise<void> {
  const admin = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
}
