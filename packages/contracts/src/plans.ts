/** The plans (docs/behaviour/plans-and-limits.md). */
export const PLANS = ['free', 'pro', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** What a plan allows; null means unlimited (the portal shows -1 for an unlimited rate or collection count). */
export interface PlanLimits {
  collections: number | null;
  /** Active records of the tenant, checked on creation (and before a replace). */
  records: number | null;
  searches_per_month: number | null;
  /** Whether searches beyond the month's allowance are served (and billed) rather than refused with 402. */
  allows_overage: boolean;
  /** EUR per 1,000 searches beyond the allowance; null where overage is blocked or priced by contract. */
  search_overage_per_1000_eur: number | null;
  requests_per_minute: number;
  search_per_minute: number;
}

/** What each plan allows: the plan table of docs/behaviour/plans-and-limits.md, written here once. */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    collections: 1,
    records: 50,
    searches_per_month: 50,
    allows_overage: false,
    search_overage_per_1000_eur: null,
    requests_per_minute: 60,
    search_per_minute: 20,
  },
  pro: {
    collections: 5,
    records: 100_000,
    searches_per_month: 50_000,
    allows_overage: true,
    search_overage_per_1000_eur: 1.5,
    requests_per_minute: 600,
    search_per_minute: 300,
  },
  scale: {
    collections: null,
    records: null,
    searches_per_month: 500_000,
    allows_overage: true,
    search_overage_per_1000_eur: 1.0,
    requests_per_minute: 2_000,
    search_per_minute: 1_000,
  },
  enterprise: {
    collections: null,
    records: null,
    searches_per_month: null,
    allows_overage: true,
    search_overage_per_1000_eur: null,
    requests_per_minute: 10_000,
    search_per_minute: 10_000,
  },
};

/**
 * The plan of a tenant no plan was set for: enterprise (unlimited) when self-hosted, the default mode; free in the
 * cloud (docs/behaviour/plans-and-limits.md). Auth creates tenants on it and billing reads it for a tenant it has no plan row of.
 */
export function defaultPlan(deploymentMode: string | undefined): Plan {
  return deploymentMode === 'cloud' ? 'free' : 'enterprise';
}

/** A plan name as an identity carries it; anything unknown reads as enterprise, the self-hosted default. */
export function planOf(name: string | undefined): Plan {
  return (PLANS as readonly string[]).includes(name ?? '') ? (name as Plan) : 'enterprise';
}
