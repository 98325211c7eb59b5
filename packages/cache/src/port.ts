/**
 * The cache and counter port. Two adapters: in-process (embedded; one process sees every change) and Redis
 * (REDIS_URL; replicas share one cache and one count). Proven by one contract suite (cache.contract.ts).
 */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  /** The stored value, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores a value for ttlMs milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * The namespace's current version (0 before the first bump). Callers put it into their keys, so one bump makes
   * every entry stored under an older version unreachable: invalidation without listing keys.
   */
  version(namespace: string): Promise<number>;
  /** Raises the namespace's version; returns the new one. */
  bump(namespace: string): Promise<number>;
  /**
   * Counts one hit in a fixed window of windowMs that starts at the first hit; answers the count including this hit
   * and when the window ends (epoch milliseconds). For rate limits.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
  /** Rejects when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
