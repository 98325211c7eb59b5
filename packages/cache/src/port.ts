/**
 * The cache and counter port. Two adapters: in-process (embedded; one process sees every change) and Redis
 * (REDIS_URL; replicas share one cache and one count). Proven by one contract suite (cache.contract.ts).
 */
/** One hit of hitAll. */
export interface Hit {
  key: string;
  windowMs: number;
  /** What the count starts from when this hit opens the window (default 0); a whole number, at least 0. */
  initial?: number;
}

/** A window's count including this hit, and when it ends (epoch milliseconds). */
export interface HitCount {
  count: number;
  resetAt: number;
}

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
  hit(key: string, windowMs: number): Promise<HitCount>;
  /**
   * Counts one hit in each of several fixed windows at once, in one round trip and atomically (Redis runs one script),
   * answering in the order given. A hit may carry `initial`: a count to start from when its window is new (a count
   * kept elsewhere, such as the month's searches so far), ignored while the window runs. A key is always counted with
   * the same window length, and callers use few lengths (the in-process adapter keeps counters per length).
   */
  hitAll(hits: readonly Hit[]): Promise<HitCount[]>;
  /** Rejects when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
