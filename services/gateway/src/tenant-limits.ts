import type { Response } from 'express';
import { FailOpenCounts, type Cache, type Hit } from '@trove/cache';
import { PLAN_LIMITS, planOf } from '@trove/contracts';
import { ERRORS, decide, type Identity, type Logger } from '@trove/platform';
import type { LimitClass } from './domain/limits';

/** The per-minute allowances are fixed windows of a minute that start at a tenant's first call in them. */
const MINUTE_MS = 60_000;
/**
 * How long a refusal is held back once a tenant keeps calling after being refused (more calls in the window than
 * twice its allowance): a client that ignores Retry-After then gets its 429s at most this often per connection, so
 * refusing it costs the process little and other tenants' requests are not queued behind it. Never past the window.
 */
const REFUSAL_HOLD_MS = 1_000;

export interface TenantLimitsOptions {
  cache: Cache;
  /** TENANT_RATE_LIMITS: when false, nothing is counted or refused and no X-RateLimit headers are set. */
  enabled?: boolean;
  /** REFUSAL_HOLD_MS unless given (0 answers every refusal at once). */
  refusalHoldMs?: number;
  logger: Logger;
  now?: () => number;
}

/**
 * Per-tenant limits of the plan the identity carries: API calls and search calls per minute (429 with Retry-After).
 * The month's searches (402) are the search service's to count, where every private search arrives, MCP's included.
 * The counts live in the cache port, so gateway replicas sharing Redis share them, and a request costs one cache call.
 * When the store cannot answer, requests pass without the headers, logged once per outage.
 */
export class TenantLimits {
  private readonly counts: FailOpenCounts;
  private readonly now: () => number;

  constructor(private readonly opts: TenantLimitsOptions) {
    this.now = opts.now ?? Date.now;
    this.counts = new FailOpenCounts(opts.cache, opts.logger, 'tenant rate limit counters', 'requests pass unlimited');
  }

  /**
   * Counts the request against its tenant and sets the X-RateLimit headers (a search call's report the search
   * allowance, a refused call's the allowance it exhausted); throws the 429 to answer instead of forwarding.
   */
  async check(identity: Identity, cls: LimitClass, res: Response): Promise<void> {
    if (this.opts.enabled === false) return;
    const plan = planOf(identity.plan);
    const limits = PLAN_LIMITS[plan];
    const tenant = identity.tenantId;
    const hits: Hit[] = [{ key: `gw:calls:${tenant}`, windowMs: MINUTE_MS }];
    if (cls.searchCall) hits.push({ key: `gw:searches:${tenant}`, windowMs: MINUTE_MS });
    const counted = await this.counts.hitAll(hits);
    if (!counted) return;
    const now = this.now();
    const allowances = [{ count: counted[0]!, limit: limits.requests_per_minute }];
    if (cls.searchCall) allowances.unshift({ count: counted[1]!, limit: limits.search_per_minute });
    const judged = allowances.map((a) => ({ ...a, decision: decide(a.limit, a.count.count, a.count.resetAt, now) }));
    // A search call reports the search allowance, a refused call the allowance it exhausted.
    const refused = judged.find((j) => !j.decision.allowed);
    for (const [name, value] of Object.entries((refused ?? judged[0]!).decision.headers)) res.setHeader(name, value);
    if (refused) {
      const { count, limit } = refused;
      const hold = count.count > 2 * limit ? Math.min(this.opts.refusalHoldMs ?? REFUSAL_HOLD_MS, count.resetAt - now) : 0;
      if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
      const seconds = decide(limit, count.count, count.resetAt, this.now()).retryAfterSeconds;
      throw ERRORS.tooManyRequests(`Rate limit exceeded. Try again in ${seconds} seconds.`, { 'Retry-After': String(seconds) }, 'tenant_rate');
    }
  }
}
