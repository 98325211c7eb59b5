import { Redis } from 'ioredis';
import type { Logger } from '@trove/platform';
import { validHit, wholeMilliseconds } from './duration';
import type { Cache, Hit, HitCount } from './port';
import { redactUrl, scrubSecret } from './redact';

export interface RedisCacheOptions {
  /** redis:// or rediss:// URL; it may carry a password, which is never logged. */
  url: string;
  /** Put before every key, so several deployments can share one Redis (default "trove:"). */
  keyPrefix?: string;
  /** Connection trouble is reported here (once per outage); without it, it is only seen as rejected calls. */
  logger?: Logger;
  /** How long a command may wait for its answer before it rejects (default 2,000 ms). */
  commandTimeoutMs?: number;
  /** How long connect() may take, TCP connection, handshake and first ping together (default 5,000 ms). */
  connectTimeoutMs?: number;
}

const DEFAULT_KEY_PREFIX = 'trove:';
const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const MAX_RECONNECT_DELAY_MS = 2_000;

// Values, versions and counters live in separate key spaces, so a caller's value key can never read or overwrite a
// version or a counter of the same name (the embedded adapter keeps them in separate maps).
const VALUE = 'e:';
const VERSION = 'v:';
const COUNTER = 'c:';

/**
 * One round trip, atomic: the first hit of a window stores when it ends and expires the key then; later hits only
 * count. The end is stored rather than derived from PTTL so every hit of a window answers the same resetAt.
 */
const HIT_SCRIPT = `
local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
if count == 1 then
  redis.call('HSET', KEYS[1], 'resetAt', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {count, tonumber(ARGV[2])}
end
return {count, tonumber(redis.call('HGET', KEYS[1], 'resetAt'))}
`;

/**
 * hitAll in one round trip, atomic: HIT_SCRIPT for every key, ARGV holding length, window end and initial count per
 * key. Answers the counts and ends flattened, in the order of the keys.
 */
const HIT_ALL_SCRIPT = `
local answer = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('HINCRBY', key, 'count', 1)
  local resetAt
  if count == 1 then
    local initial = tonumber(ARGV[3 * i])
    if initial > 0 then count = redis.call('HINCRBY', key, 'count', initial) end
    resetAt = tonumber(ARGV[3 * i - 1])
    redis.call('HSET', key, 'resetAt', ARGV[3 * i - 1])
    redis.call('PEXPIRE', key, ARGV[3 * i - 2])
  else
    resetAt = tonumber(redis.call('HGET', key, 'resetAt'))
  end
  answer[2 * i - 1] = count
  answer[2 * i] = resetAt
end
return answer
`;

type HitAllCommand = (keyCount: number, ...keysAndArgs: (string | number)[]) => Promise<number[]>;

type HitCommand = (key: string, windowMs: number, resetAt: number) => Promise<[number, number]>;

/**
 * The scaled adapter: every replica shares one cache and one count.
 *
 * Built to fail fast rather than wait for Redis: no offline queue (a call made while disconnected rejects at once),
 * one retry for a call caught by a dropped connection, and a timeout on every command. Callers can then serve without
 * the cache instead of hanging a request. Reconnection goes on in the background until close().
 */
export class RedisCache implements Cache {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private readonly target: string;
  private readonly connectTimeoutMs: number;
  private readonly hitCommand: HitCommand;
  private readonly hitAllCommand: HitAllCommand;
  private lastError?: Error;
  private troubled = false;
  private closing?: Promise<void>;

  constructor(private readonly opts: RedisCacheOptions) {
    this.target = redactUrl(opts.url);
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.redis = new Redis(opts.url, {
      keyPrefix: opts.keyPrefix ?? DEFAULT_KEY_PREFIX,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      connectTimeout: Math.min(this.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
      retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    });
    // Without a listener ioredis prints every connection error to the console; with one, nothing crashes either.
    this.redis.on('error', (err: Error) => this.onConnectionError(err));
    this.redis.on('ready', () => {
      if (!this.troubled) return;
      this.troubled = false;
      this.opts.logger?.info({ redis: this.target }, 'Redis is reachable again');
    });
    this.redis.defineCommand('troveHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    // The number of keys varies, so it is passed with each call.
    this.redis.defineCommand('troveHitAll', { lua: HIT_ALL_SCRIPT });
    // defineCommand adds the method at run time; its type is declared here rather than by augmenting ioredis's
    // interfaces for every package that imports it.
    const commands = this.redis as unknown as { troveHit: HitCommand; troveHitAll: HitAllCommand };
    this.hitCommand = commands.troveHit.bind(this.redis);
    this.hitAllCommand = commands.troveHitAll.bind(this.redis);
  }

  /**
   * Connects and pings; call it once before anything else (createCache does). Rejects within connectTimeoutMs with an
   * error that names the server but not its password, and then stops trying.
   */
  async connect(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
    });
    try {
      await Promise.race([
        (async () => {
          await this.redis.connect();
          await this.redis.ping();
        })(),
        timeout,
      ]);
    } catch (err) {
      this.redis.disconnect();
      // ioredis answers a refused connection with "Connection is closed."; the socket's own error says why.
      const reason = this.lastError?.message ?? (err instanceof Error ? err.message : String(err));
      throw new Error(`Redis at ${this.target} is unreachable: ${scrubSecret(reason, this.opts.url)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(VALUE + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const px = wholeMilliseconds('ttlMs', ttlMs);
    await this.redis.set(VALUE + key, value, 'PX', px);
  }

  async version(namespace: string): Promise<number> {
    const stored = await this.redis.get(VERSION + namespace);
    return stored === null ? 0 : Number(stored);
  }

  async bump(namespace: string): Promise<number> {
    return this.redis.incr(VERSION + namespace);
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const length = wholeMilliseconds('windowMs', windowMs);
    const [count, resetAt] = await this.hitCommand(COUNTER + key, length, Date.now() + length);
    return { count, resetAt };
  }

  async hitAll(hits: readonly Hit[]): Promise<HitCount[]> {
    if (hits.length === 0) return [];
    const now = Date.now();
    const args: (string | number)[] = [];
    for (const h of hits) {
      const length = validHit(h);
      args.push(length, now + length, h.initial ?? 0);
    }
    const answer = await this.hitAllCommand(hits.length, ...hits.map((h) => COUNTER + h.key), ...args);
    return hits.map((_, i) => ({ count: answer[2 * i]!, resetAt: answer[2 * i + 1]! }));
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  close(): Promise<void> {
    this.closing ??= this.quit();
    return this.closing;
  }

  private async quit(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // Lost the connection while saying goodbye; disconnect below ends the reconnection attempts all the same.
      }
    }
    this.redis.disconnect();
  }

  private onConnectionError(err: Error): void {
    this.lastError = err;
    if (this.troubled || this.closing) return;
    this.troubled = true;
    // Only the code and a scrubbed message, never the error object and whatever else it carries.
    const code = (err as NodeJS.ErrnoException).code;
    this.opts.logger?.warn(
      { redis: this.target, code, reason: scrubSecret(err.message, this.opts.url) },
      'Redis connection failed; cache calls reject until it is back',
    );
  }
}
