import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { GATEWAY_PRINCIPAL, KEY_VERIFY, type KeyVerifyResponse } from '@trove/contracts';
import { HttpError, type CacheResult, type Identity, type Logger, type ServiceClient } from '@trove/platform';

/** Who the gateway is when it asks auth to verify a key; auth answers only this principal. */
export const GATEWAY_IDENTITY: Identity = {
  tenantId: '00000000-0000-0000-0000-000000000000',
  principal: GATEWAY_PRINCIPAL,
  scopes: [],
};

interface CachedKey {
  keyId: string;
  identity: Identity;
  /** Epoch milliseconds, or null for a key that never expires. */
  expiresAt: number | null;
}

export interface KeyVerifierOptions {
  /** The auth service's client (ctx.client('auth')); shutdown() shuts it down. */
  auth: ServiceClient;
  cacheTtlMs: number;
  logger: Logger;
  maxCachedKeys?: number;
  /** Counts each lookup of the key cache (cacheLookups), when the cache is on. */
  lookups?: (result: CacheResult) => void;
}

/**
 * Turns an API key into an identity through auth's /internal/keys/verify, and caches the answer for a short while.
 *
 * The cache is keyed by a SHA-256 of the key so it never holds a key value, keeps no entry past the key's expiry,
 * and drops a key the moment it is revoked or rotated (see `drop`). It stays off until `enableCache`, which is
 * called once the auth.events subscription runs: before that, a revocation could not reach it.
 */
export class KeyVerifier {
  private readonly cache: LRUCache<string, CachedKey>;
  private caching = false;
  /** Bumped by every drop; a verification that started before a drop must not cache its (maybe stale) answer. */
  private generation = 0;

  constructor(private readonly opts: KeyVerifierOptions) {
    this.cache = new LRUCache({ max: opts.maxCachedKeys ?? 10_000, ...(opts.cacheTtlMs > 0 ? { ttl: opts.cacheTtlMs } : {}) });
  }

  enableCache(): void {
    this.caching = this.opts.cacheTtlMs > 0;
  }

  disableCache(): void {
    this.caching = false;
    this.cache.clear();
  }

  async verify(value: string, requestId: string): Promise<Identity> {
    const cacheKey = createHash('sha256').update(value).digest('hex');
    const cached = this.cache.get(cacheKey);
    const hit = cached !== undefined && (cached.expiresAt === null || cached.expiresAt > Date.now());
    if (this.caching) this.opts.lookups?.(hit ? 'hit' : 'miss');
    if (hit) return cached.identity;

    const generation = this.generation;
    let key: KeyVerifyResponse;
    try {
      key = await this.opts.auth.call(KEY_VERIFY, { identity: GATEWAY_IDENTITY, body: { key: value }, requestId });
    } catch (err) {
      // 401 is auth's answer about the key; anything else is auth failing, which the operator should hear of.
      if (!(err instanceof HttpError && err.status === 401)) this.opts.logger.error({ reason: (err as Error).message, requestId }, 'auth could not verify a key');
      throw err;
    }

    const identity: Identity = { tenantId: key.tenant_id, principal: `key:${key.key_id}`, scopes: key.scopes, plan: key.plan };
    const expiresAt = key.expires_at === null ? null : Date.parse(key.expires_at);
    if (this.caching && generation === this.generation) {
      const ttl = Math.min(this.opts.cacheTtlMs, expiresAt === null ? Infinity : expiresAt - Date.now());
      if (ttl >= 1) this.cache.set(cacheKey, { keyId: key.key_id.toLowerCase(), identity, expiresAt }, { ttl: Math.floor(ttl) });
    }
    return identity;
  }

  /** Forgets every cached value of a key at once (its old value after a rotation, or any value after revocation). */
  drop(keyId: string): void {
    const id = keyId.toLowerCase();
    this.forget((v) => v.keyId === id);
  }

  /** Forgets every cached key of a tenant (its plan changed). */
  dropTenant(tenantId: string): void {
    const id = tenantId.toLowerCase();
    this.forget((v) => v.identity.tenantId.toLowerCase() === id);
  }

  private forget(stale: (cached: CachedKey) => boolean): void {
    this.generation++;
    const keys: string[] = [];
    for (const [k, v] of this.cache.entries()) if (stale(v)) keys.push(k);
    for (const k of keys) this.cache.delete(k);
  }

  shutdown(): void {
    this.disableCache();
    this.opts.auth.shutdown();
  }
}
