import { PLAN_LIMITS, type Plan } from '@trove/contracts';

/** What a tenant holds as its plan counts it: active records of each collection's counted generation, and the collections holding them. */
export interface Holdings {
  records: number;
  collections: number;
  /** Whether the collection being written is among those collections (a write to it opens no new collection). */
  holdsCollection: boolean;
}

/** How many records a write may create: `allowed` null when the plan limits nothing, and why the rest are refused. */
export interface Allowance {
  allowed: number | null;
  reason: string;
}

/** Whether the plan limits records or collections at all: unlimited plans skip counting and the tenant's lock. */
export function isLimited(plan: Plan): boolean {
  const limits = PLAN_LIMITS[plan];
  return limits.records !== null || limits.collections !== null;
}

/** The 402 detail, and a refused record's reason, when a plan's record limit is reached. */
export function recordLimitReached(plan: Plan): string {
  return `Record limit reached: the ${plan} plan allows ${PLAN_LIMITS[plan].records?.toLocaleString('en-US')} active records.`;
}

/** The 402 detail, and a refused record's reason, when a write would open one collection more than the plan allows. */
export function collectionLimitReached(plan: Plan): string {
  const limit = PLAN_LIMITS[plan].collections;
  return `Collection limit reached: the ${plan} plan allows ${limit} ${limit === 1 ? 'collection' : 'collections'}.`;
}

/**
 * How many new active records a write into one collection may create (docs/behaviour/plans-and-limits.md): none when the collection
 * is new and the tenant already has the plan's number of collections, else what is left of the record limit.
 */
export function allowance(plan: Plan, holdings: Holdings): Allowance {
  const limits = PLAN_LIMITS[plan];
  if (limits.collections !== null && !holdings.holdsCollection && holdings.collections >= limits.collections) {
    return { allowed: 0, reason: collectionLimitReached(plan) };
  }
  if (limits.records === null) return { allowed: null, reason: '' };
  return { allowed: Math.max(0, limits.records - holdings.records), reason: recordLimitReached(plan) };
}

/**
 * Why a write that made drafts active is refused, judged on what the tenant held before and after it: it may not
 * take the tenant past the plan's record or collection limit (a tenant already past one, after a downgrade, may not
 * grow further).
 */
export function growthRefusal(plan: Plan, before: Holdings, after: Holdings): string | undefined {
  const limits = PLAN_LIMITS[plan];
  if (limits.collections !== null && after.collections > before.collections && after.collections > limits.collections) {
    return collectionLimitReached(plan);
  }
  if (limits.records !== null && after.records > before.records && after.records > limits.records) return recordLimitReached(plan);
  return undefined;
}
