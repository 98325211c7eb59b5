import type { Response } from 'express';
import type { Cache, Hit, HitCount } from '@trove/cache';
import { BILLING_USAGE_PATH, PLAN_LIMITS, planOf, usagePeriodOf, type BillingUsageAnswer } from '@trove/contracts';
import { ERRORS, decide, type Identity, type Logger, type ServiceClient } from '@trove/platform';
import { monthlySearchCap, type LimitClass } from './domain/limits';

/** The per-minute allowances are fixed windows of a minute that start at a tenant's first call in them. */
const MINUTE_MS = 60_000;
/**
 * The month's search count lives under a key naming the month, so it starts afresh each month whatever its window;
 * the window (longer than any month) only lets the store forget it afterwards. One length for every month's key.
 */
const MONTH_KEY_MS = 32 * 24 * 60 * 60 * 1000;

/**
 * How long a refusal is held back once a tenant keeps calling after being refused (more calls in the window than
 * twice its allowance): a client that ignores Retry-After then gets its 429s at most this often per connection, so
 * refusing it costs the process little and other tenants' requests are not queued behind it. Never past the window.
 */
const REFUSAL_HOLD_MS = 1_000;

export interface TenantLimitsOptions {
  cache: Cache;
  /** REFUSAL_HOLD_MS unless given (0 answers every refusal at once). */
  refusalHoldMs?: number;
  /** Billing answers a tenant's counted searches of the month, which seed the gateway's count (BILLING_USAGE_PATH). */
  billing: Pick<ServiceClient, 'request'>;
  logger: Logger;
  now?: () => number;
}

/**
 * Per-tenant limits of the plan the identity carries: API calls and search calls per minute (429 with Retry-After),
 * and for a plan without overage the month's searches (402). The counts live in the cache port, so gateway replicas
 * sharing Redis share them, and a request costs one cache call (a free tenant's search that passes a second, for the
 * month). When the store cannot answer, requests pass without the headers, logged once per outage.
 */
export class TenantLimits {
  /** The month's count billing had when this process first counted a tenant's searches in a month. */
  private readonly seeds = new Map<string, Promise<number>>();
  private seedsPeriod = '';
  private storeDown = false;
  private readonly now: () => number;

  constructor(private readonly opts: TenantLimitsOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Counts the request against its tenant and sets the X-RateLimit headers (a search call's report the search
   * allowance, a refused call's the allowance it exhausted); throws the 429 or 402 to answer instead of forwarding.
   */
  async check(identity: Identity, cls: LimitClass, res: Response): Promise<void> {
    const plan = planOf(identity.plan);
    const limits = PLAN_LIMITS[plan];
    const tenant = identity.tenantId;
    const hits: Hit[] = [{ key: `gw:calls:${tenant}`, windowMs: MINUTE_MS }];
    if (cls.searchCall) hits.push({ key: `gw:searches:${tenant}`, windowMs: MINUTE_MS });
    const counted = await this.count(hits);
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
      throw ERRORS.tooManyRequests(`Rate limit exceeded. Try again in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
    }
    const cap = cls.monthlySearch ? monthlySearchCap(plan) : undefined;
    if (cap !== undefined) await this.checkMonth(tenant, cap);
  }

  /**
   * One more search in the tenant's month, refused past the cap. Counted only once the minute allowances let the
   * search through, so a refused burst never uses up the month. The count starts from billing's for the month.
   */
  private async checkMonth(tenant: string, cap: number): Promise<void> {
    const period = usagePeriodOf(new Date(this.now()));
    const initial = await this.seed(tenant, period);
    const counted = await this.count([{ key: `gw:month:${tenant}:${period}`, windowMs: MONTH_KEY_MS, initial }]);
    if (counted && counted[0]!.count > cap) {
      throw ERRORS.paymentRequired(`Monthly search limit of ${cap} reached on the free plan; upgrade to a paid plan to search more this month.`);
    }
  }

  /**
   * What billing had counted for the tenant's month, asked once per tenant and month by this process; 0 (logged) when
   * billing cannot answer. The store ignores it where the month's count already exists (another replica's, or this
   * process's before a restart when the store is Redis).
   */
  private seed(tenant: string, period: string): Promise<number> {
    if (period !== this.seedsPeriod) {
      // A new month: last month's seeds are never needed again.
      this.seeds.clear();
      this.seedsPeriod = period;
    }
    let seed = this.seeds.get(tenant);
    if (!seed) {
      seed = this.askBilling(tenant, period);
      this.seeds.set(tenant, seed);
    }
    return seed;
  }

  private async askBilling(tenant: string, period: string): Promise<number> {
    try {
      const res = await this.opts.billing.request<BillingUsageAnswer>({
        method: 'GET',
        path: `${BILLING_USAGE_PATH}?tenant_id=${encodeURIComponent(tenant)}`,
        identity: { tenantId: tenant, principal: 'service:gateway', scopes: [] },
      });
      if (res.status === 200 && res.body.period === period && Number.isSafeInteger(res.body.searches) && res.body.searches >= 0) {
        return res.body.searches;
      }
      this.opts.logger.warn({ tenantId: tenant, period, status: res.status }, "billing gave no usable count of the month's searches; counting from 0");
    } catch (err) {
      this.opts.logger.warn({ tenantId: tenant, period, reason: (err as Error).message }, "billing unreachable; the month's searches counted from 0");
    }
    return 0;
  }

  private async count(hits: Hit[]): Promise<HitCount[] | undefined> {
    try {
      const counted = await this.opts.cache.hitAll(hits);
      if (this.storeDown) {
        this.storeDown = false;
        this.opts.logger.info('tenant rate limit counters are reachable again');
      }
      return counted;
    } catch (err) {
      if (!this.storeDown) {
        this.storeDown = true;
        this.opts.logger.warn({ reason: (err as Error).message }, 'tenant rate limit counters unavailable; requests pass unlimited until they are back');
      }
      return undefined;
    }
  }
}
