import { openRedisHarness, redisReachable, redisUrl } from './__tests__/redis';
import { cacheContract } from './cache.contract';
import { redactUrl } from './redact';

const target = redactUrl(redisUrl);

if (redisReachable()) {
  cacheContract(`Redis (${target})`, () => openRedisHarness());
} else {
  console.warn(`Redis cache contract run skipped: ${target} is unreachable (set REDIS_URL or TEST_REDIS_URL)`);
  cacheContract(`Redis (${target}, unreachable)`, () => openRedisHarness(), describe.skip);
}
