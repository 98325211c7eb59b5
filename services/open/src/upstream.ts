import {
  PUBLIC_AGGREGATE_PATH,
  PUBLIC_COLLECTIONS_PATH,
  PUBLIC_RECORDS_MAX_IDS,
  PUBLIC_RECORDS_PATH,
  PUBLIC_SEARCH_PATH,
  PUBLIC_VISIBLE_PATH,
  RECORDS_COLLECTION_STATS,
  type AggregateAnswer,
  type CollectionStatsAnswer,
  type PublicAggregateRequest,
  type PublicCollection,
  type PublicCollectionsAnswer,
  type PublicSearchRequest,
  type PublicVisibleAnswer,
  type RecordDto,
  type SearchAnswer,
} from '@trove/contracts';
import { ERRORS, HttpError, type ServiceClient } from '@trove/platform';

/** Who the open service is when it calls other services; their internal routes need only a valid identity. */
const IDENTITY = { tenantId: '00000000-0000-0000-0000-000000000000', principal: 'service:open', scopes: ['search' as const] };

/**
 * The open service's view of its upstreams: the public index (search) and the system of record (records). A 422
 * from an upstream is the client's (its filters, its sort) and is answered as it came; any other failure is a 503.
 */
export class Upstreams {
  constructor(private readonly clients: { search: ServiceClient; records: ServiceClient }) {}

  search(body: PublicSearchRequest, requestId?: string): Promise<SearchAnswer> {
    return this.call(this.clients.search, 'search', PUBLIC_SEARCH_PATH, body, requestId);
  }

  aggregate(body: PublicAggregateRequest, requestId?: string): Promise<AggregateAnswer> {
    return this.call(this.clients.search, 'search', PUBLIC_AGGREGATE_PATH, body, requestId);
  }

  /** The public index's collections, grouped across tenants, in one call. */
  async collections(requestId?: string): Promise<PublicCollection[]> {
    const answer = await this.call<PublicCollectionsAnswer>(this.clients.search, 'search', PUBLIC_COLLECTIONS_PATH, {}, requestId);
    return answer.collections;
  }

  /** The records among `ids` that are public and searchable right now, by id. */
  async publicRecords(ids: string[], requestId?: string): Promise<Map<string, RecordDto>> {
    const out = new Map<string, RecordDto>();
    for (const answer of await this.byChunks<{ records: RecordDto[] }>(PUBLIC_RECORDS_PATH, ids, requestId)) {
      for (const r of answer.records) out.set(r.id, r);
    }
    return out;
  }

  /** Which of `ids` are public and searchable right now, each with its tenant (the records themselves not loaded). */
  async publicVisible(ids: string[], requestId?: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const answer of await this.byChunks<PublicVisibleAnswer>(PUBLIC_VISIBLE_PATH, ids, requestId)) {
      for (const r of answer.visible) out.set(r.id, r.tenant_id);
    }
    return out;
  }

  /** Records' answers to `ids` asked PUBLIC_RECORDS_MAX_IDS at a time, one call after the other. */
  private async byChunks<T>(path: string, ids: string[], requestId?: string): Promise<T[]> {
    const answers: T[] = [];
    for (let i = 0; i < ids.length; i += PUBLIC_RECORDS_MAX_IDS) {
      answers.push(await this.call<T>(this.clients.records, 'records', path, { ids: ids.slice(i, i + PUBLIC_RECORDS_MAX_IDS) }, requestId));
    }
    return answers;
  }

  /** The tenant's collections with their record and public counts, as records counts them now. */
  async collectionStats(tenantId: string, requestId?: string): Promise<CollectionStatsAnswer> {
    const identity = { tenantId, principal: 'service:open', scopes: ['records' as const] };
    return this.clients.records.call(RECORDS_COLLECTION_STATS, { identity, requestId });
  }

  private async call<T>(client: ServiceClient, service: string, path: string, body: unknown, requestId?: string): Promise<T> {
    const res = await client.request<T>({ method: 'POST', path, identity: IDENTITY, body, requestId });
    if (res.status === 200) return res.body;
    const detail = (res.body as { detail?: unknown } | undefined)?.detail;
    if (res.status === 422 && Array.isArray(detail)) throw ERRORS.validation(detail);
    if (res.status === 422 || res.status === 400) throw new HttpError(res.status, 'bad_request', typeof detail === 'string' ? detail : 'Invalid request');
    throw ERRORS.unavailable(`The ${service} service is unavailable; try again shortly`);
  }
}
