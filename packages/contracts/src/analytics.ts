/** Where the portal's analytics read Open search counts; the gateway never forwards /internal. */
export const OPEN_SEARCH_COUNTS_PATH = '/internal/open/search-counts';

/** How often Open searches surfaced each of a tenant's collections in a month (YYYY-MM, UTC). */
export interface OpenSearchCounts {
  tenant_id: string;
  period: string;
  total_open_searches: number;
  collections: Array<{ collection: string; open_searches: number }>;
}

/**
 * Where other services (open's portal analytics, auth's portal usage) read a tenant's per-collection counts from
 * records; the tenant is the caller's identity. Only collections holding active records of their active generation.
 */
export const RECORDS_COLLECTION_STATS_PATH = '/internal/records/collection-stats';

export interface CollectionStats {
  collection: string;
  /** Active records of the collection's active generation. */
  record_count: number;
  /** Those of them that are public. */
  public_count: number;
  /** When one of them last changed (ISO 8601). */
  last_updated: string;
}

export interface CollectionStatsAnswer {
  tenant_id: string;
  /** Active records of the tenant across its collections: the count a plan's record limit applies to. */
  total_records: number;
  collections: CollectionStats[];
}
