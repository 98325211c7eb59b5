import { PLAN_LIMITS, type Plan, type PlanLimits } from '@trove/contracts';
import type { Route } from './route-table';

/**
 * What a request counts as against its tenant's plan. Every request counts as an API call; a search or an
 * aggregation also as a search call (each costs an index query, as on the Open API); a search (key or portal) also
 * against the month's searches, which is what billing counts. MCP's tool calls travel in a body the gateway never
 * reads, so an MCP request is an API call only.
 */
export interface LimitClass {
  searchCall: boolean;
  monthlySearch: boolean;
}

const SEARCH_PREFIXES = new Set(['/api/v1/search', '/api/v1/portal/search']);
const SEARCH_CALL_PREFIXES = new Set([...SEARCH_PREFIXES, '/api/v1/aggregate']);

/** Decided by the route-table entry that matched, so every spelling of a path the route table accepts counts alike. */
export function limitClassOf(route: Route): LimitClass {
  return { searchCall: SEARCH_CALL_PREFIXES.has(route.prefix), monthlySearch: SEARCH_PREFIXES.has(route.prefix) };
}

/** The month's search allowance the gateway enforces: only a plan that refuses overage has one (paid overage is billed). */
export function monthlySearchCap(plan: Plan): number | undefined {
  const limits: PlanLimits = PLAN_LIMITS[plan];
  return limits.allows_overage ? undefined : (limits.searches_per_month ?? undefined);
}
