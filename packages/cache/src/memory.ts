import { validHit, wholeMilliseconds } from './duration';
import type { Cache, Hit, HitCount } from './port';

export interface MemoryCacheOptions {
  /**
   * Most values kept, and separately most counters kept per window length (default 10,000); the least recently used
   * go first.
   */
  maxEntries?: number;
  /** The clock, in epoch milliseconds; tests pass their own. */
  now?: () => number;
}

export const DEFAULT_MAX_ENTRIES = 10_000;

interface Entry {
  value: string;
  expiresAt: number;
}

interface Window {
  count: number;
  resetAt: number;
}

/**
 * The embedded adapter: one process, so one Map per kind of data is the whole store.
 *
 * A Map iterates in insertion order, so re-inserting an entry on every read keeps the least recently used first, where
 * eviction takes it. Expired entries are dropped when met rather than by a sweeping timer, so nothing here keeps the
 * process alive.
 */
export class MemoryCache implements Cache {
  readonly kind = 'memory' as const;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  /**
   * Counters by window length, each map ordered by window start and so, one length per map, by window end: ended
   * windows are dropped from the front, and a long window (a month) never shields short ones from that nor is evicted
   * for them.
   */
  private readonly windows = new Map<number, Map<string, Window>>();
  // Never evicted: forgetting a version would send it back to 0 and make entries stored under version 0 reachable
  // again. There is one per namespace (tenant and collection), far fewer than entries.
  private readonly versions = new Map<string, number>();
  private closed = false;

  constructor(opts: MemoryCacheOptions = {}) {
    const maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive whole number, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
    this.now = opts.now ?? Date.now;
  }

  /** How many values are held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    this.assertOpen();
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.assertOpen();
    const expiresAt = this.now() + wholeMilliseconds('ttlMs', ttlMs);
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    evictOldest(this.entries, this.maxEntries);
  }

  async version(namespace: string): Promise<number> {
    this.assertOpen();
    return this.versions.get(namespace) ?? 0;
  }

  async bump(namespace: string): Promise<number> {
    this.assertOpen();
    const next = (this.versions.get(namespace) ?? 0) + 1;
    this.versions.set(namespace, next);
    return next;
  }

  async hit(key: string, windowMs: number): Promise<HitCount> {
    this.assertOpen();
    return this.count({ key, windowMs }, this.now());
  }

  async hitAll(hits: readonly Hit[]): Promise<HitCount[]> {
    this.assertOpen();
    // Validated first, so a bad hit counts none of them, as in Redis.
    for (const h of hits) validHit(h);
    const now = this.now();
    return hits.map((h) => this.count(h, now));
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.entries.clear();
    this.windows.clear();
    this.versions.clear();
  }

  private count(hit: Hit, now: number): HitCount {
    const length = validHit(hit);
    let windows = this.windows.get(length);
    if (!windows) this.windows.set(length, (windows = new Map()));
    const current = windows.get(hit.key);
    if (current && now < current.resetAt) {
      current.count += 1;
      return { count: current.count, resetAt: current.resetAt };
    }
    const fresh: Window = { count: (hit.initial ?? 0) + 1, resetAt: now + length };
    // Re-inserted so the map stays ordered by window start, which with one length per map is also the order of ends.
    windows.delete(hit.key);
    windows.set(hit.key, fresh);
    for (const [key, window] of windows) {
      if (window.resetAt > now) break;
      windows.delete(key);
    }
    evictOldest(windows, this.maxEntries);
    return { count: fresh.count, resetAt: fresh.resetAt };
  }

  private assertOpen(): void {
    // The Redis adapter rejects after close too; callers see the same behaviour from both.
    if (this.closed) throw new Error('The cache is closed');
  }
}

function evictOldest<V>(map: Map<string, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
