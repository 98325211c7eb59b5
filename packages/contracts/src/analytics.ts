/** Where the portal's analytics read Open search counts; the gateway never forwards /internal. */
export const OPEN_SEARCH_COUNTS_PATH = '/internal/open/search-counts';

/** How often Open searches surfaced each of a tenant's collections in a month (YYYY-MM, UTC). */
export interface OpenSearchCounts {
  tenant_id: string;
  period: string;
  total_open_searches: number;
  collections: Array<{ collection: string; open_searches: number }>;
}
