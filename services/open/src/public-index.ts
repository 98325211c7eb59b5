import {
  PUBLIC_AGGREGATE,
  PUBLIC_COLLECTIONS,
  PUBLIC_RECORDS,
  PUBLIC_RECORDS_MAX_IDS,
  PUBLIC_SEARCH,
  PUBLIC_VISIBLE,
  RECORDS_COLLECTION_STATS,
  type AggregateAnswer,
  type CollectionStatsAnswer,
  type PublicAggregateRequest,
  type PublicCollection,
  type PublicSearchRequest,
  type RecordDto,
  type SearchAnswer,
} from '@trove/contracts';
import type { ServiceClient } from '@trove/platform';

/** Who the open service is when it calls other services; their internal routes need only a valid identity. */
const IDENTITY = { tenantId: '00000000-0000-0000-0000-000000000000', principal: 'service:open', scopes: ['search' as const] };

/**
 * The open service's view of its upstreams: the public index (search) and the system of record (records). A 400 or
 * 422 from search is the client's (its filters, its sort) and is answered as it came; any other failure is a 503.
 */
export class PublicIndex {
  constructor(private readonly clients: { search: ServiceClient; records: ServiceClient }) {}

  search(body: PublicSearchRequest, requestId?: string): Promise<SearchAnswer> {
    return this.clients.search.call(PUBLIC_SEARCH, { identity: IDENTITY, body, requestId });
  }

  aggregate(body: PublicAggregateRequest, requestId?: string): Promise<AggregateAnswer> {
    return this.clients.search.call(PUBLIC_AGGREGATE, { identity: IDENTITY, body, requestId });
  }

  /** The public index's collections, grouped across tenants, in one call. */
  async collections(requestId?: string): Promise<PublicCollection[]> {
    return (await this.clients.search.call(PUBLIC_COLLECTIONS, { identity: IDENTITY, body: {}, requestId })).collections;
  }

  /** The records among `ids` that are public and searchable right now, by id. */
  async publicRecords(ids: string[], requestId?: string): Promise<Map<string, RecordDto>> {
    const out = new Map<string, RecordDto>();
    for (const chunk of chunksOf(ids)) {
      const answer = await this.clients.records.call(PUBLIC_RECORDS, { identity: IDENTITY, body: { ids: chunk }, requestId });
      for (const r of answer.records) out.set(r.id, r);
    }
    return out;
  }

  /** Which of `ids` are public and searchable right now, each with its tenant (the records themselves not loaded). */
  async publicVisible(ids: string[], requestId?: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const chunk of chunksOf(ids)) {
      const answer = await this.clients.records.call(PUBLIC_VISIBLE, { identity: IDENTITY, body: { ids: chunk }, requestId });
      for (const r of answer.visible) out.set(r.id, r.tenant_id);
    }
    return out;
  }

  /** The tenant's collections with their record and public counts, as records counts them now. */
  async collectionStats(tenantId: string, requestId?: string): Promise<CollectionStatsAnswer> {
    const identity = { tenantId, principal: 'service:open', scopes: ['records' as const] };
    return this.clients.records.call(RECORDS_COLLECTION_STATS, { identity, requestId });
  }
}

/** `ids` in lists of PUBLIC_RECORDS_MAX_IDS, asked one after the other. */
function chunksOf(ids: string[]): string[][] {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += PUBLIC_RECORDS_MAX_IDS) chunks.push(ids.slice(i, i + PUBLIC_RECORDS_MAX_IDS));
  return chunks;
}
