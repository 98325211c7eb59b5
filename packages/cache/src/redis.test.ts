import type { Logger } from '@trove/platform';
import { openRedisHarness, redisReachable, redisUrl } from './__tests__/redis';
import { cuttableProxy, silentRedis } from './__tests__/servers';
import { createCache } from './factory';
import { RedisCache } from './redis';

/** A logger that keeps what it was given, to check what would have been written. */
function recordingLogger() {
  const lines: string[] = [];
  const record = (fields: unknown, message?: string) => void lines.push(JSON.stringify({ fields, message }));
  const logger = { warn: record, info: record, error: record, debug: record } as unknown as Logger;
  return { logger, lines };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('RedisCache without a usable server', () => {
  it('rejects connect at once when the port refuses, naming the server but not its password', async () => {
    const { logger, lines } = recordingLogger();
    const cache = new RedisCache({ url: 'redis://default:hunter2-secret@127.0.0.1:1', logger });
    const started = Date.now();

    const error = await cache.connect().then(
      () => undefined,
      (err: Error) => err,
    );

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error?.message).toMatch(/^Redis at redis:\/\/default:\*\*\*@127\.0\.0\.1:1 is unreachable: .*ECONNREFUSED/);
    expect(error?.message).not.toContain('hunter2');
    expect(lines.join('\n')).not.toContain('hunter2');
    await cache.close();
  });

  it('rejects connect within connectTimeoutMs when the server never answers', async () => {
    const server = await silentRedis({ answerHandshake: false });
    const cache = new RedisCache({ url: server.url, connectTimeoutMs: 300 });
    const started = Date.now();
    try {
      await expect(cache.connect()).rejects.toThrow(/is unreachable/);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await cache.close();
      await server.close();
    }
  });

  it('rejects a command the server accepted but never answered once commandTimeoutMs passed', async () => {
    const server = await silentRedis({ answerHandshake: true });
    const cache = new RedisCache({ url: server.url, commandTimeoutMs: 200 });
    try {
      await cache.connect();
      const started = Date.now();

      await expect(cache.get('k')).rejects.toThrow(/timed out/i);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await cache.close();
      await server.close();
    }
  });

  it('rejects calls made before connect instead of queueing them', async () => {
    const cache = new RedisCache({ url: 'redis://127.0.0.1:1' });

    await expect(cache.get('k')).rejects.toThrow();
    await cache.close();
  });
});

describe('createCache', () => {
  it('answers an in-process cache when no Redis URL is given', async () => {
    const cache = await createCache({ maxEntries: 5 });

    expect(cache.kind).toBe('memory');
    await cache.close();
  });

  it('treats an empty REDIS_URL as not set', async () => {
    const cache = await createCache({ redisUrl: '' });

    expect(cache.kind).toBe('memory');
    await cache.close();
  });

  it('rejects with an error naming REDIS_URL, without its password, when Redis is unreachable', async () => {
    await expect(createCache({ redisUrl: 'redis://:hunter2-secret@127.0.0.1:1' })).rejects.toThrow(
      /^REDIS_URL cannot be used: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 is unreachable/,
    );
    await expect(createCache({ redisUrl: 'redis://:hunter2-secret@127.0.0.1:1' })).rejects.not.toThrow(/hunter2/);
  });
});

const describeWithRedis = redisReachable() ? describe : describe.skip;

describeWithRedis('RedisCache on a live server', () => {
  it('is what createCache answers for a reachable REDIS_URL', async () => {
    const cache = await createCache({ redisUrl, keyPrefix: 'trove-test-factory:' });
    try {
      expect(cache.kind).toBe('redis');
      await expect(cache.ping()).resolves.toBeUndefined();
    } finally {
      await cache.close();
    }
  });

  it('keeps caches with different key prefixes apart', async () => {
    const one = await openRedisHarness();
    const two = await openRedisHarness();
    try {
      await one.cache.set('shared', 'one', 10_000);
      await one.cache.bump('ns');
      await one.cache.hit('client', 10_000);

      expect(await two.cache.get('shared')).toBeUndefined();
      expect(await two.cache.version('ns')).toBe(0);
      expect((await two.cache.hit('client', 10_000)).count).toBe(1);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('rejects promptly while the connection is down, logs the outage once, and answers again once Redis is back', async () => {
    const proxy = await cuttableProxy(redisUrl);
    const { logger, lines } = recordingLogger();
    const { cache, close } = await openRedisHarness({ url: proxy.url, logger });
    try {
      await cache.set('k', 'v', 10_000);

      await proxy.cut();
      await sleep(50);
      const started = Date.now();
      await expect(cache.get('k')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(500);
      await sleep(400);
      expect(lines.filter((line) => line.includes('Redis connection failed'))).toHaveLength(1);

      await proxy.restore();
      let answer: string | undefined;
      for (let attempt = 0; attempt < 50 && answer === undefined; attempt++) {
        answer = await cache.get('k').catch(() => undefined);
        if (answer === undefined) await sleep(100);
      }
      expect(answer).toBe('v');
      expect(lines.some((line) => line.includes('Redis is reachable again'))).toBe(true);
    } finally {
      await close();
      await proxy.close();
    }
  });
});
