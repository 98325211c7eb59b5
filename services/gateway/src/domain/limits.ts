import type { Route } from './route-table';

/**
 * What a request counts as against its tenant's per-minute allowances. Every request counts as an API call; a search
 * or an aggregation also as a search call (each costs an index query, as on the Open API); a multi-search counts as
 * one search call here (the gateway never reads its body), and as one search per query in the month's count. MCP's tool calls travel in
 * a body the gateway never reads, so an MCP request is an API call only. The month's searches are counted by the
 * search service, which every private search reaches, MCP's included.
 */
export interface LimitClass {
  searchCall: boolean;
}

const SEARCH_CALL_PREFIXES = new Set(['/api/v1/search', '/api/v1/portal/search', '/api/v1/multi-search', '/api/v1/portal/multi-search', '/api/v1/aggregate']);

/** Decided by the route-table entry that matched, so every spelling of a path the route table accepts counts alike. */
export function limitClassOf(route: Route): LimitClass {
  return { searchCall: SEARCH_CALL_PREFIXES.has(route.prefix) };
}
