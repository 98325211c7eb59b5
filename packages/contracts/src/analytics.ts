import { z } from 'zod';
import { endpoint, type EndpointAnswer } from './endpoint';
import { usagePeriod } from './events';
/**
 * How often Open searches surfaced each of a tenant's collections in a month (YYYY-MM, UTC; the current month by
 * default), counting what open still gathers in memory. The gateway never forwards /internal.
 */
export const OPEN_SEARCH_COUNTS = endpoint({
  service: 'open',
  method: 'GET',
  path: '/internal/open/search-counts',
  summary: "How often Open searches surfaced each of a tenant's collections in a month",
  query: z.object({ tenant_id: z.guid(), period: usagePeriod.optional() }),
  answer: z.object({
    tenant_id: z.string(),
    period: z.string(),
    total_open_searches: z.number().int(),
    collections: z.array(z.object({ collection: z.string(), open_searches: z.number().int() })),
  }),
});

const collectionStats = z.object({
  collection: z.string(),
  /** Active records of the collection's active generation. */
  record_count: z.number().int(),
  /** Those of them that are public. */
  public_count: z.number().int(),
  /** When one of them last changed (ISO 8601). */
  last_updated: z.string(),
});
export type CollectionStats = z.output<typeof collectionStats>;

/**
 * A tenant's collections with their record and public counts, as records counts them now; the tenant is the caller's
 * identity, never a parameter. Read by auth (admin tenants), billing (usage) and open (portal analytics). Only
 * collections holding active records of their active generation.
 */
export const RECORDS_COLLECTION_STATS = endpoint({
  service: 'records',
  method: 'GET',
  path: '/internal/records/collection-stats',
  summary: "The caller's tenant's collections with their record and public counts",
  answer: z.object({
    tenant_id: z.string(),
    /** Active records of the tenant across its collections: the count a plan's record limit applies to. */
    total_records: z.number().int(),
    collections: z.array(collectionStats),
  }),
});
export type CollectionStatsAnswer = EndpointAnswer<typeof RECORDS_COLLECTION_STATS>;

/**
 * The portal's analytics of the signed-in person's tenant for the current month (GET /portal/analytics, open's): how
 * often Open searches surfaced each collection beside its record and public counts. A collection searched this month
 * but since emptied is listed with no records and last_updated null, so the collections add up to total_open_searches.
 */
export const portalAnalyticsAnswer = z.object({
  tenant_id: z.string(),
  /** The month counted (YYYY-MM, UTC). */
  period: z.string(),
  total_open_searches: z.number().int(),
  /** By name. */
  collections: z.array(
    collectionStats.extend({
      open_searches: z.number().int(),
      last_updated: collectionStats.shape.last_updated.nullable(),
    }),
  ),
});
export type PortalAnalytics = z.output<typeof portalAnalyticsAnswer>;
