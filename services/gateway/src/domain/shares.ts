import type { Route } from './route-table';

/**
 * The kinds of expensive work a tenant can queue through the gateway, each shared out by its own fair scheduler:
 * searches (private, portal, aggregation, MCP, and the Open API by client address), uploads (every file, batch,
 * stream and webhook upload, and a replace's upload), and connector calls (a pull runs the tenant's query). Other
 * requests (reads and writes of single records, keys, status reads) are cheap and go straight through.
 */
export type ShareClass = 'search' | 'upload' | 'pull';

const CLASSES: ReadonlyMap<string, ShareClass> = new Map([
  ['/api/v1/search', 'search'],
  ['/api/v1/portal/search', 'search'],
  ['/api/v1/multi-search', 'search'],
  ['/api/v1/portal/multi-search', 'search'],
  ['/api/v1/aggregate', 'search'],
  ['/mcp', 'search'],
  ['/open/v1', 'search'],
  ['/api/v1/upload', 'upload'],
  ['/api/v1/webhooks', 'upload'],
  ['/api/v1/ingest', 'upload'],
  ['/api/v1/portal/upload', 'upload'],
  ['/api/v1/portal/collections/*/replace', 'upload'],
  ['/api/v1/connectors', 'pull'],
]);

/** Decided by the route-table entry that matched, as the rate limits are (limits.ts). */
export function shareClassOf(route: Route): ShareClass | undefined {
  return CLASSES.get(route.prefix);
}
