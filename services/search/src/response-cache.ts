import { createHash } from 'node:crypto';
import type { Cache } from '@trove/cache';
import type { CacheResult, Logger } from '@trove/platform';
import type { SearchScope } from '@trove/search-engine';

/** The cache namespace of what a scope can see: one per tenant collection, one for the shared public index. */
export function cacheNamespace(scope: SearchScope): string {
  return scope.kind === 'private' ? `private:${scope.tenant_id}:${scope.collection}` : 'public';
}

export interface ResponseCacheOptions {
  cache: Cache;
  /** How long an answer is kept (SEARCH_CACHE_TTL_MS); 0 turns the cache off. */
  ttlMs: number;
  logger: Logger;
  /** Counts each lookup (hit, miss, or a cache that could not answer); none while the cache is off. */
  lookups?: (result: CacheResult) => void;
}

/**
 * An answer found in the cache, as the JSON text stored, with the note kept for it when this process stored it; or one
 * computed, with the JSON text it was stored as (when it was), so it need not be serialised twice.
 */
export type Cached<T, Note> = { hit: true; text: string; note?: Note } | { hit: false; value: T; text?: string };

const MAX_NOTES = 10_000;

/**
 * Answers to search and aggregate requests, kept under the scope's cache version, which the indexer raises on every
 * change (see cacheNamespace). Beside each answer it stores, it can keep a small note in this process (what the health
 * window needs of a search answer), so a hit need not parse the answer to report on it.
 */
export class ResponseCache<Note> {
  private readonly notes = new Map<string, Note>();

  constructor(private readonly opts: ResponseCacheOptions) {}

  /**
   * Answers from the cache when an identical request was answered under the scope's current cache version, else
   * computes and stores. The version is read before computing, so an answer computed while a change lands is stored
   * under the old version, which that change's bump has already retired.
   */
  async answer<T>(
    scope: SearchScope,
    request: unknown,
    compute: () => Promise<{ value: T; store: boolean }>,
    noteOf?: (value: T) => Note,
  ): Promise<Cached<T, Note>> {
    const ns = cacheNamespace(scope);
    const ttl = this.opts.ttlMs;
    let key: string | undefined;
    if (ttl > 0) {
      try {
        const version = await this.opts.cache.version(ns);
        key = `search:${ns}:${version}:${digest(request)}`;
        const text = await this.opts.cache.get(key);
        this.opts.lookups?.(text === undefined ? 'miss' : 'hit');
        if (text !== undefined) return { hit: true, text, note: this.notes.get(key) };
      } catch (err) {
        this.opts.lookups?.('error');
        // A cache that cannot answer only costs speed.
        this.opts.logger.warn({ err }, 'search cache unavailable');
        key = undefined;
      }
    }
    const { value, store } = await compute();
    if (key && store) {
      const storedKey = key;
      if (noteOf) this.remember(storedKey, noteOf(value));
      const text = JSON.stringify(value);
      this.opts.cache.set(storedKey, text, ttl).catch((err: unknown) => this.opts.logger.warn({ err }, 'search cache write failed'));
      return { hit: false, value, text };
    }
    return { hit: false, value };
  }

  private remember(key: string, note: Note): void {
    if (this.notes.size >= MAX_NOTES) this.notes.delete(this.notes.keys().next().value!);
    this.notes.set(key, note);
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url');
}
