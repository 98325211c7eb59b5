import {
  AGGREGATE,
  COLLECTION_LIST,
  MULTI_SEARCH,
  RECORD_READ,
  RECORDS_LIST,
  SEARCH,
  type AggregateAnswer,
  type CollectionsAnswer,
  type EndpointInput,
  type FederatedAnswer,
  type RecordDto,
  type RecordListAnswer,
  type SearchAnswer,
} from '@trove/contracts';
import { HttpError, type Identity, type ServiceClient } from '@trove/platform';
import { ToolError, detailText } from './domain/tool-error';

/** A record in full, as records' GET /records/{id} answers it. */
export type FullRecord = RecordDto;
/** One record of a listing page. */
export type ListItem = RecordListAnswer['items'][number];
/** What a listing asks for: records' list parameters (collection_data filters in the shared filter syntax). */
export type ListParams = EndpointInput<typeof RECORDS_LIST>['body'];

/** The calls the tools make, for one tenant: search and records, with an identity carrying that tenant. */
export interface Backend {
  search(collection: string, body: EndpointInput<typeof SEARCH>['body']): Promise<SearchAnswer>;
  /** Several collections searched as one ranked list (a federated multi-search). */
  federated(body: EndpointInput<typeof MULTI_SEARCH>['body'] & { federation: object }): Promise<FederatedAnswer>;
  aggregate(body: EndpointInput<typeof AGGREGATE>['body']): Promise<AggregateAnswer>;
  list(params: ListParams): Promise<RecordListAnswer>;
  /** The tenant's collections as records lists them (by name). */
  collections(): Promise<CollectionsAnswer>;
  /** Undefined when the record does not exist for this tenant. */
  record(id: string): Promise<FullRecord | undefined>;
}

/** What the model is shown of a refusal: a search's or a listing's 422 names the argument it refused. */
const SHOWN = [400, 404, 422];

/** The two upstream clients, shared by every request (one circuit breaker each). */
export class Backends {
  constructor(
    private readonly records: ServiceClient,
    private readonly searchClient: ServiceClient,
  ) {}

  /** The caller's plan travels on, so search counts an MCP search against the tenant's month like any other. */
  for(caller: Identity, requestId?: string): Backend {
    const identity: Identity = { tenantId: caller.tenantId, principal: 'service:mcp', scopes: ['search', 'records'], plan: caller.plan };
    const context = { identity, requestId, passOn: SHOWN };
    return {
      search: (collection, body) => asTool('Search', this.searchClient.call(SEARCH, { ...context, params: { collection }, body })),
      federated: (body) => asTool('Search', this.searchClient.call(MULTI_SEARCH, { ...context, body }) as Promise<FederatedAnswer>),
      aggregate: (body) => asTool('Aggregation', this.searchClient.call(AGGREGATE, { ...context, body })),
      list: (body) => asTool('Listing records', this.records.call(RECORDS_LIST, { ...context, body })),
      collections: () => asTool('Listing collections', this.records.call(COLLECTION_LIST, context)),
      record: (id) =>
        asTool(
          'Reading the record',
          this.records.call(RECORD_READ, { ...context, params: { id } }).catch((err: unknown) => {
            if (err instanceof HttpError && err.status === 404) return undefined;
            throw err;
          }),
        ),
    };
  }
}

/**
 * The answer, or a ToolError the model can read: a refusal with its status and detail; an upstream that is down,
 * failing or behind an open breaker as the 503's detail (the model may retry later).
 */
async function asTool<T>(what: string, answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    if (err.status === 503) throw new ToolError(typeof err.detail === 'string' ? err.detail : err.message);
    throw new ToolError(`${what} failed (${err.status}): ${detailText({ detail: err.detail })}`);
  }
}
