import { LRUCache } from 'lru-cache';
import type { BillingEvent, Plan } from '@trove/contracts';

/**
 * The latest plan change this gateway has seen per tenant (billing.events, since it started). It is applied over the
 * plan an identity arrived with, because a portal token carries the plan of its sign-in and a key's cached
 * verification, or auth's answer before auth read the same event, may still carry the old one: a change reaches
 * every request the moment this gateway reads it. Changes older than the one held are ignored (out of order).
 */
export class TenantPlans {
  private readonly latest: LRUCache<string, { plan: Plan; changedAt: number }>;

  constructor(maxTenants = 100_000) {
    this.latest = new LRUCache({ max: maxTenants });
  }

  /** Keeps the change unless a later one is held; answers whether it was kept. */
  apply(change: Pick<BillingEvent, 'tenant_id' | 'plan' | 'changed_at'>): boolean {
    const tenantId = change.tenant_id.toLowerCase();
    const changedAt = Date.parse(change.changed_at);
    const held = this.latest.get(tenantId);
    if (held && held.changedAt > changedAt) return false;
    this.latest.set(tenantId, { plan: change.plan, changedAt });
    return true;
  }

  /** The plan of the latest change seen for the tenant; undefined when none was seen. */
  planOf(tenantId: string): Plan | undefined {
    return this.latest.get(tenantId.toLowerCase())?.plan;
  }
}
