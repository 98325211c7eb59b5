import { RECORDS_COLLECTIONS_PATH, RECORDS_LIST_PATH, type AggregateAnswer, type CollectionsAnswer, type FilterValue, type SearchAnswer } from '@trove/contracts';
import { HttpError, type Identity, type ServiceClient } from '@trove/platform';
import { ToolError, detailText } from './domain/tool-error';

export type Json = Record<string, unknown>;

/** A record as records' GET /records/{id} returns it. */
export interface FullRecord extends Json {
  id: string;
  name: string;
  collection: string;
  record_type: string;
  collection_data: Json;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface ListItem {
  id: string;
  name: string;
  collection: string;
  record_type: string;
  indexing_status: string;
  created_at: string;
  updated_at: string;
}

export interface ListPage {
  items: ListItem[];
  cursor: string | null;
  has_more: boolean;
}

export interface ListParams {
  collection?: string;
  record_type?: string;
  status?: string;
  /** collection_data filters in the shared filter syntax, applied by records. */
  filters?: Record<string, FilterValue>;
  cursor?: string;
  limit: number;
}

/** The calls the tools make, for one tenant: search and records over HTTP with an identity carrying that tenant. */
export interface Backend {
  search(collection: string, body: Json): Promise<SearchAnswer>;
  aggregate(body: Json): Promise<AggregateAnswer>;
  list(params: ListParams): Promise<ListPage>;
  /** The tenant's collections as records lists them (by name). */
  collections(): Promise<CollectionsAnswer>;
  /** Undefined when the record does not exist for this tenant. */
  record(id: string): Promise<FullRecord | undefined>;
}

/** The two upstream clients, shared by every request (one circuit breaker each). */
export class Upstreams {
  constructor(
    private readonly records: ServiceClient,
    private readonly searchClient: ServiceClient,
  ) {}

  /** The caller's plan travels on, so search counts an MCP search against the tenant's month like any other. */
  for(caller: Identity, requestId?: string): Backend {
    const identity: Identity = { tenantId: caller.tenantId, principal: 'service:mcp', scopes: ['search', 'records'], plan: caller.plan };
    const call = async <T>(client: ServiceClient, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
      try {
        return await client.request<T>({ method, path, identity, body, requestId });
      } catch (err) {
        // Unreachable, failing or breaker open: the model may retry later.
        if (err instanceof HttpError) throw new ToolError(typeof err.detail === 'string' ? err.detail : err.message);
        throw err;
      }
    };
    const ok = <T>(res: { status: number; body: unknown }, what: string): T => {
      if (res.status >= 200 && res.status < 300) return res.body as T;
      throw new ToolError(`${what} failed (${res.status}): ${detailText(res.body)}`);
    };
    return {
      search: async (collection, body) =>
        ok<SearchAnswer>(await call(this.searchClient, 'POST', `/search/${encodeURIComponent(collection)}`, body), 'Search'),
      aggregate: async (body) => ok<AggregateAnswer>(await call(this.searchClient, 'POST', '/aggregate', body), 'Aggregation'),
      list: async (params) => ok<ListPage>(await call(this.records, 'POST', RECORDS_LIST_PATH, params), 'Listing records'),
      collections: async () => ok<CollectionsAnswer>(await call(this.records, 'GET', RECORDS_COLLECTIONS_PATH), 'Listing collections'),
      record: async (id) => {
        const res = await call<FullRecord>(this.records, 'GET', `/records/${encodeURIComponent(id)}`);
        if (res.status === 404) return undefined;
        return ok<FullRecord>(res, 'Reading the record');
      },
    };
  }
}
