import { z } from 'zod';
import { portalAnalyticsAnswer } from '../analytics';
import { endpoint, withPortalToken, withoutCredential, type Endpoint, type Exposure } from '../endpoint';
import { queryInteger } from '../query-params';
import { collectionName, recordSchema } from '../records';
import {
  MAX_OFFSET,
  PUBLIC_PAGE_DEFAULT,
  PUBLIC_PAGE_MAX,
  SEARCH_TEXT_MAX,
  aggregateAnswer,
  emptyAnswerFields,
  publicAggregateRequest,
  facetAnswer,
  searchExtras,
  searchField,
  searchFilters,
  searchResultItem,
  searchText,
} from '../search';
import { openApiAnswer } from './gateway';
import { serviceAppEndpoints } from './service-app';
import { collectionParams } from './search';

/**
 * The Open API: public search, aggregation, collections and record lookup across tenants, without a key, limited per
 * client IP (429 past the limit, with Retry-After). Its paths are the open service's, answered under /open/v1.
 */
const openApi: Exposure = withoutCredential('/open/v1');

/** The body fields of both POST searches; any other field is refused (422, docs/behaviour/open-api.md). */
const searchBodyFields = {
  query: searchText.optional(),
  filters: searchFilters.default({}),
  sort: searchField.optional(),
  limit: z.int().min(1).max(PUBLIC_PAGE_MAX).default(PUBLIC_PAGE_DEFAULT),
  offset: z.int().min(0).max(MAX_OFFSET).default(0),
  ...searchExtras,
};

/** `q` of the GET searches: empty (the default) browses, else 1-SEARCH_TEXT_MAX characters after trimming. */
const openQueryText = z
  .string()
  .max(SEARCH_TEXT_MAX)
  .transform((v) => v.trim())
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** The query string of both GET searches; unknown parameters are ignored, as caches and proxies add their own. */
const searchQueryFields = {
  q: openQueryText,
  sort: searchField.optional(),
  limit: queryInteger(1, PUBLIC_PAGE_MAX, PUBLIC_PAGE_DEFAULT),
  offset: queryInteger(0, MAX_OFFSET, 0),
};

/** A search result as the Open API answers it: a private search's, without `description`. */
export const openResultItem = searchResultItem.omit({ description: true });
export type OpenResultItem = z.output<typeof openResultItem>;

/** An Open search's answer. */
export const openSearchAnswer = z.object({
  results: z.array(openResultItem),
  /** Paging follows the index: has_more holds even when hidden records thinned the page. */
  pagination: z.object({ offset: z.number().int(), limit: z.number().int(), has_more: z.boolean() }),
  /** Only when the search asks for `facets`, as private search's: over every public match of the query and filters. */
  facets: z.record(z.string(), facetAnswer).optional(),
  metadata: z.object({
    search_mode: z.enum(['fulltext', 'error']),
    processing_time_ms: z.number(),
    /** Exact up to 1,000 matches (10,000 with exact_total); above, possibly estimated, as private search's. */
    total_estimate: z.number().int(),
    /** True when total_estimate is an estimate; false when it is the exact count. */
    total_is_estimate: z.boolean(),
    cache_hit: z.boolean(),
    /** Only on an answer that found nothing in a named collection; see emptyAnswerFields. */
    ...emptyAnswerFields,
  }),
});
export type OpenSearchAnswer = z.output<typeof openSearchAnswer>;

/** A collection with public records, grouped by name across tenants. */
export const openCollection = z.object({
  collection: z.string(),
  /** The record types among its public records, by name. */
  record_types: z.array(z.string()),
  /** Its public records. */
  record_count: z.number().int(),
  /** One generated sentence of what it holds. */
  description: z.string(),
});
export type OpenCollection = z.output<typeof openCollection>;

/** A search's 400 from the public index (a filter or sort it cannot apply) is passed on as it came. */
const SEARCH_REFUSALS = [400] as const;

export const OPEN_SEARCH = endpoint({
  service: 'open',
  method: 'POST',
  path: '/search',
  summary: 'Searches the public records of every tenant (full text, identifiers, filters, sort); with neither query nor filters, lists them by name',
  exposed: openApi,
  body: z.strictObject({ ...searchBodyFields, collection: collectionName.optional() }),
  example: { query: 'hex bolt m8', collection: 'products', filters: { material: 'steel' }, limit: 10 },
  answer: openSearchAnswer,
  refusals: SEARCH_REFUSALS,
});

export const OPEN_SEARCH_BY_QUERY = endpoint({
  service: 'open',
  method: 'GET',
  path: '/search',
  summary: 'Searches the public records of every tenant, or of one collection, with the query in the query string',
  exposed: openApi,
  query: z.object({ ...searchQueryFields, collection: collectionName.optional() }),
  answer: openSearchAnswer,
  refusals: SEARCH_REFUSALS,
});

export const OPEN_COLLECTION_SEARCH = endpoint({
  service: 'open',
  method: 'POST',
  path: '/search/:collection',
  summary: "Searches one collection's public records, as POST /search does",
  exposed: openApi,
  params: collectionParams,
  body: z.strictObject(searchBodyFields),
  example: { query: '4006381333931', limit: 10 },
  answer: openSearchAnswer,
  refusals: SEARCH_REFUSALS,
});

export const OPEN_COLLECTION_SEARCH_BY_QUERY = endpoint({
  service: 'open',
  method: 'GET',
  path: '/search/:collection',
  summary: "Searches one collection's public records with the query in the query string",
  exposed: openApi,
  params: collectionParams,
  query: z.object(searchQueryFields),
  answer: openSearchAnswer,
  refusals: SEARCH_REFUSALS,
});

export const OPEN_AGGREGATE = endpoint({
  service: 'open',
  method: 'POST',
  path: '/aggregate',
  summary: "Counts public records by a field's values and computes numeric stats, over the filters' matches, across tenants",
  exposed: openApi,
  body: publicAggregateRequest,
  example: { collection: 'products', group_by: 'material', stats: ['price'] },
  answer: aggregateAnswer,
  refusals: SEARCH_REFUSALS,
});

export const OPEN_COLLECTIONS = endpoint({
  service: 'open',
  method: 'GET',
  path: '/collections',
  summary: 'Lists the collections with public records, largest first, optionally those whose name or description contains q',
  exposed: openApi,
  query: z.object({ q: z.string().max(200).trim().optional() }),
  answer: z.array(openCollection),
});

export const OPEN_COLLECTION_SCHEMA = endpoint({
  service: 'open',
  method: 'GET',
  path: '/collections/:collection/schema',
  summary: "Describes a collection: its public record count, record types, and the fields its records can be filtered on",
  exposed: openApi,
  params: collectionParams,
  answer: openCollection.extend({
    /** `<field> (<type>): <sample values>`, fields most sampled records have first. */
    filterable_fields: z.array(z.string()),
  }),
  refusals: [404],
});

export const OPEN_RECORD = endpoint({
  service: 'open',
  method: 'GET',
  path: '/records/:record_id',
  summary: 'One public record in full; a private, archived or missing one is the same 404',
  exposed: openApi,
  params: z.object({ record_id: z.guid() }),
  answer: recordSchema.omit({ tenant_id: true, version: true }),
  refusals: [404],
});

export const PORTAL_ANALYTICS = endpoint({
  service: 'open',
  method: 'GET',
  path: '/portal/analytics',
  summary: "How often Open searches surfaced each of the signed-in tenant's collections this month, beside their record and public counts",
  exposed: withPortalToken,
  answer: portalAnalyticsAnswer,
});

// Every service app answers these itself (platform's createServiceApp); open's are public under /open/v1.
const openApp = serviceAppEndpoints('open', 'the Open API', openApi);

export const OPEN_HEALTH = openApp.health;

export const OPEN_HEALTH_READY = endpoint({
  ...openApp.ready,
  summary: 'Readiness of the Open API: its database, event bus and rate-limit counter store (503 when one is down)',
});

export const OPEN_METRICS = openApp.metrics;

export const OPEN_OPENAPI = endpoint({
  service: 'open',
  method: 'GET',
  path: '/openapi.json',
  summary: 'The Open API described in OpenAPI 3.1: its endpoints alone, which need no key',
  exposed: openApi,
  answer: openApiAnswer,
});

/** Every public endpoint the open service answers. */
export const OPEN_API: readonly Endpoint[] = [
  OPEN_SEARCH,
  OPEN_SEARCH_BY_QUERY,
  OPEN_COLLECTION_SEARCH,
  OPEN_COLLECTION_SEARCH_BY_QUERY,
  OPEN_AGGREGATE,
  OPEN_COLLECTIONS,
  OPEN_COLLECTION_SCHEMA,
  OPEN_RECORD,
  PORTAL_ANALYTICS,
  OPEN_HEALTH,
  OPEN_HEALTH_READY,
  OPEN_METRICS,
  OPEN_OPENAPI,
];
