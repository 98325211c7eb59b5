import { z } from 'zod';
import { endpoint, withKey, withPortalToken, withoutCredential, type Endpoint } from '../endpoint';
import { collectionName } from '../records';
import { collectionSettingsAnswer, collectionSettingsPatch } from '../settings';
import { MAX_OFFSET, SEARCH_LIMIT_MAX, aggregateAnswer, aggregateRequest, multiSearchAnswer, multiSearchRequest, searchAnswer, searchRequest, searchText } from '../search';

/** A path naming one of the caller's collections. */
export const collectionParams = z.object({ collection: collectionName });

/** A search's answer is JSON, or text when `format` asks for `compact` or `yaml`. */
const SEARCH_MEDIA = ['application/json', 'text/plain'] as const;

export const SEARCH = endpoint({
  service: 'search',
  method: 'POST',
  path: '/search/:collection',
  summary: "Searches one of the caller's collections: full text, identifiers, filters and sort",
  exposed: withKey('search'),
  params: collectionParams,
  body: searchRequest,
  example: { query: 'hex bolt m8', filters: { material: 'steel', price_max: 1 }, sort: '-price', limit: 20, offset: 0 },
  answer: searchAnswer,
  produces: SEARCH_MEDIA,
  refusals: [402],
});

export const SEARCH_BY_QUERY = endpoint({
  service: 'search',
  method: 'GET',
  path: '/search/:collection',
  summary: "Searches one of the caller's collections with the query in the query string",
  exposed: withKey('search'),
  params: collectionParams,
  query: z.object({
    q: searchText,
    limit: z.coerce.number().int().min(1).max(SEARCH_LIMIT_MAX).default(20),
    offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0),
  }),
  answer: searchAnswer,
  refusals: [402],
});

export const PORTAL_SEARCH = endpoint({
  ...SEARCH,
  path: '/portal/search/:collection',
  summary: "Searches one of the signed-in tenant's collections, as POST /search/{collection} does",
  exposed: withPortalToken,
});

export const MULTI_SEARCH = endpoint({
  service: 'search',
  method: 'POST',
  path: '/multi-search',
  summary: "Searches several of the caller's collections in one request: one answer per query, or one merged ranked list (federation)",
  exposed: withKey('search'),
  body: multiSearchRequest,
  example: {
    queries: [
      { collection: 'bolts', query: 'm8 hex', limit: 5 },
      { collection: 'nuts', query: 'm8', filters: { material: 'steel' }, limit: 5 },
    ],
    federation: { limit: 10 },
  },
  answer: multiSearchAnswer,
  refusals: [402],
});

export const PORTAL_MULTI_SEARCH = endpoint({
  ...MULTI_SEARCH,
  path: '/portal/multi-search',
  summary: "Searches several of the signed-in tenant's collections in one request, as POST /multi-search does",
  exposed: withPortalToken,
});

export const COLLECTION_SETTINGS_READ = endpoint({
  service: 'search',
  method: 'GET',
  path: '/collections/:collection/settings',
  summary: "A collection's search settings (synonyms, stop words, searchable fields, typo tolerance) and their version",
  exposed: withKey('records'),
  params: collectionParams,
  answer: collectionSettingsAnswer,
});

export const COLLECTION_SETTINGS_UPDATE = endpoint({
  service: 'search',
  method: 'PATCH',
  path: '/collections/:collection/settings',
  summary: "Changes a collection's search settings; every search after the answer applies them, with no reindex",
  exposed: withKey('records'),
  params: collectionParams,
  body: collectionSettingsPatch,
  example: {
    synonyms: [['bolt', 'screw'], { input: ['m8'], synonyms: ['m8 x 1.25'] }],
    stop_words: ['the', 'a'],
    searchable_fields: ['brand', 'material', 'specs.finish'],
    typo_tolerance: { min_word_size_one_typo: 4, disable_on_fields: ['sku'] },
  },
  answer: collectionSettingsAnswer,
});

/** The portal names a collection `name` in its paths. */
const portalCollectionParams = z.object({ name: collectionName });

export const PORTAL_COLLECTION_SETTINGS_READ = endpoint({
  ...COLLECTION_SETTINGS_READ,
  path: '/portal/collections/:name/settings',
  summary: "A collection's search settings, as GET /collections/{collection}/settings answers them",
  exposed: withPortalToken,
  params: portalCollectionParams,
});

export const PORTAL_COLLECTION_SETTINGS_UPDATE = endpoint({
  ...COLLECTION_SETTINGS_UPDATE,
  path: '/portal/collections/:name/settings',
  summary: "Changes a collection's search settings, as PATCH /collections/{collection}/settings does",
  exposed: withPortalToken,
  params: portalCollectionParams,
});

export const AGGREGATE = endpoint({
  service: 'search',
  method: 'POST',
  path: '/aggregate',
  summary: "Counts a collection's records by a field's values and computes numeric stats, over the filters' matches",
  exposed: withKey('search'),
  body: aggregateRequest,
  example: { collection: 'products', filters: { material: 'steel' }, group_by: 'standard', stats: ['price'] },
  answer: aggregateAnswer,
});

/** Milliseconds, rounded to two decimals; null before the window holds a search. */
const percentile = z.number().nullable();

export const SEARCH_HEALTH = endpoint({
  service: 'search',
  method: 'GET',
  path: '/health/search',
  summary: "Search quality of the recent window (latency percentiles, zero-result rate, fallbacks) and the older pipeline's queue and breaker",
  exposed: withoutCredential('/api/v1'),
  answer: z.object({
    status: z.literal('ok'),
    /** The most recent searches this process answered, up to `size` of them; `since` the oldest one's time (ISO 8601). */
    window: z.object({ size: z.number().int(), searches: z.number().int(), since: z.string().nullable() }),
    latency_ms: z.object({ p50: percentile, p95: percentile, p99: percentile }),
    /** The share of the window's searches that found nothing (0 to 1). */
    zero_result_rate: z.number(),
    /** The window's searches whose filters alone were searched after the query with them found nothing. */
    fallback_count: z.number().int(),
    /** The older pipeline's worker in this process: records queued and running (each counted up to 10,000), its breaker. */
    pipeline: z.object({
      queued: z.number().int(),
      running: z.number().int(),
      breaker: z.enum(['closed', 'open', 'half_open']),
      /** Failed jobs since the last one that succeeded. */
      consecutive_failures: z.number().int(),
    }),
  }),
});

export const SEARCH_API: readonly Endpoint[] = [
  SEARCH,
  SEARCH_BY_QUERY,
  PORTAL_SEARCH,
  MULTI_SEARCH,
  PORTAL_MULTI_SEARCH,
  COLLECTION_SETTINGS_READ,
  COLLECTION_SETTINGS_UPDATE,
  PORTAL_COLLECTION_SETTINGS_READ,
  PORTAL_COLLECTION_SETTINGS_UPDATE,
  AGGREGATE,
  SEARCH_HEALTH,
];
