import { z } from 'zod';
import { endpoint, withKey, withPortalToken, type Endpoint } from '../endpoint';
import { collectionName } from '../records';
import { MAX_OFFSET, SEARCH_LIMIT_MAX, aggregateAnswer, aggregateRequest, searchAnswer, searchRequest, searchText } from '../search';

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

export const AGGREGATE = endpoint({
  service: 'search',
  method: 'POST',
  path: '/aggregate',
  summary: "Counts a collection's records by a field's values and computes numeric stats, over the filters' matches",
  exposed: withKey('search'),
  body: aggregateRequest,
  answer: aggregateAnswer,
});

export const SEARCH_API: readonly Endpoint[] = [SEARCH, SEARCH_BY_QUERY, PORTAL_SEARCH, AGGREGATE];
