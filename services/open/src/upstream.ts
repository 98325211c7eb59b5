import type { RecordDto } from '@trove/contracts';
import { ERRORS, HttpError, type ServiceClient } from '@trove/platform';

/** The search service's internal routes over the shared public index (services/search/src/routes/internal-public.ts). */
const PUBLIC_SEARCH_PATH = '/internal/public/search';
const PUBLIC_AGGREGATE_PATH = '/internal/public/aggregate';
/** The records service's visibility check (services/records/src/routes/internal-public.ts). */
const PUBLIC_RECORDS_PATH = '/internal/records/public';

/** Who the open service is when it calls other services; their internal routes need only a valid identity. */
const IDENTITY = { tenantId: '00000000-0000-0000-0000-000000000000', principal: 'service:open', scopes: ['search' as const] };

export type Scalar = string | number | boolean;
export type Filters = Record<string, Scalar | Scalar[]>;

export interface PublicSearchRequest {
  collection?: string;
  query?: string;
  filters?: Filters;
  sort?: string;
  limit: number;
  offset: number;
}

export interface PublicHit {
  record_id: string;
  score: number;
  collection: string;
}

export interface PublicSearchAnswer {
  results: PublicHit[];
  metadata: { search_mode: string; total_estimate: number; cache_hit: boolean };
}

export interface AggregateAnswer {
  total: number;
  groups: Array<{ value: Scalar; count: number }>;
  stats: Record<string, { count: number; min: number | null; max: number | null; avg: number | null }>;
}

export interface PublicAggregateRequest {
  collection?: string;
  filters?: Filters;
  group_by?: string;
  stats?: string[];
}

/** At most this many ids per visibility check (the records route's limit). */
export const PUBLIC_RECORDS_MAX_IDS = 100;

/**
 * The open service's view of its upstreams: the public index (search) and the system of record (records). A 422
 * from an upstream is the client's (its filters, its sort) and is answered as it came; any other failure is a 503.
 */
export class Upstreams {
  constructor(private readonly clients: { search: ServiceClient; records: ServiceClient }) {}

  search(body: PublicSearchRequest, requestId?: string): Promise<PublicSearchAnswer> {
    return this.call(this.clients.search, 'search', PUBLIC_SEARCH_PATH, body, requestId);
  }

  aggregate(body: PublicAggregateRequest, requestId?: string): Promise<AggregateAnswer> {
    return this.call(this.clients.search, 'search', PUBLIC_AGGREGATE_PATH, body, requestId);
  }

  /** The records among `ids` that are public and searchable right now, by id. */
  async publicRecords(ids: string[], requestId?: string): Promise<Map<string, RecordDto>> {
    const out = new Map<string, RecordDto>();
    for (let i = 0; i < ids.length; i += PUBLIC_RECORDS_MAX_IDS) {
      const chunk = ids.slice(i, i + PUBLIC_RECORDS_MAX_IDS);
      const answer = await this.call<{ records: RecordDto[] }>(this.clients.records, 'records', PUBLIC_RECORDS_PATH, { ids: chunk }, requestId);
      for (const r of answer.records) out.set(r.id, r);
    }
    return out;
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
