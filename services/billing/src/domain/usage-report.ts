import { PLAN_LIMITS, type Plan } from '@trove/contracts';

/** One metered quantity of GET /portal/usage: what was used, what the plan includes, and what lies beyond. */
export interface Metered {
  used: number;
  /** Null when the plan does not limit it. */
  included: number | null;
  overage: number;
  /** EUR; 0 where the plan has no overage price (blocked, unlimited, or priced by contract). */
  overage_cost: number;
}

export interface UsageReport {
  tenant_id: string;
  plan: Plan;
  period: string;
  records: Metered;
  searches: Metered;
  /** Every day of the period so far, oldest first, zeros included. */
  searches_by_day: Array<{ date: string; count: number }>;
  rate_limit: { requests_per_minute: number; search_per_minute: number; max_collections: number };
  allows_overage: boolean;
  estimated_overage_total: number;
}

const cents = (eur: number) => Math.round(eur * 100) / 100;

function metered(used: number, included: number | null, pricePer1000: number | null): Metered {
  const overage = included === null ? 0 : Math.max(0, used - included);
  return { used, included, overage, overage_cost: pricePer1000 === null ? 0 : cents((overage / 1000) * pricePer1000) };
}

/**
 * The usage report from the plan table. The table prices only search overage, so records beyond a plan's limit are
 * shown as overage but not priced. -1 is how the portal says "unlimited" for max_collections
 * (docs/behaviour/portal-usage.md).
 */
export function usageReport(input: {
  tenantId: string;
  plan: Plan;
  period: string;
  records: number;
  searches: number;
  searchesByDay: Array<{ date: string; count: number }>;
}): UsageReport {
  const limits = PLAN_LIMITS[input.plan];
  const records = metered(input.records, limits.records, null);
  const searches = metered(input.searches, limits.searches_per_month, limits.allows_overage ? limits.search_overage_per_1000_eur : null);
  return {
    tenant_id: input.tenantId,
    plan: input.plan,
    period: input.period,
    records,
    searches,
    searches_by_day: input.searchesByDay,
    rate_limit: {
      requests_per_minute: limits.requests_per_minute,
      search_per_minute: limits.search_per_minute,
      max_collections: limits.collections ?? -1,
    },
    allows_overage: limits.allows_overage,
    estimated_overage_total: cents(records.overage_cost + searches.overage_cost),
  };
}
