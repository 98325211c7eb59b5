import { z } from 'zod';
import {
  RECORD_ARCHIVE,
  RECORD_CREATE,
  RECORD_LIST,
  RECORD_READ,
  RECORD_UPDATE,
  RECORDS_LIST,
  searchFilters,
  type Endpoint,
  type Filter,
  type FilterValue,
  type RecordListAnswer,
  type recordIdParams,
  type recordListQuery,
  type recordListRequest,
} from '@trove/contracts';
import { decodeListCursor, encodeListCursor, handle, parseInput, requestFilters, requireScope, serve, tenantOf, validationError, type Router } from '@trove/platform';
import { planOfRequest, type Handler } from '../shared/http';
import { nameQuery } from './search-terms';
import type { CreateRecordInput, RecordsService } from './service';
import type { RecordUpdate } from './update';
import { CURRENT, recordIn, type RecordVocabulary } from './vocabulary';

type ListInput = Omit<z.output<typeof recordListRequest>, 'filters'>;

/** `filters` of the list, in the filter syntax of search; one that cannot apply is a 422 naming it. */
function dataFiltersOf(raw: Record<string, FilterValue> | undefined, source: 'query' | 'body'): Filter[] | undefined {
  return raw === undefined ? undefined : requestFilters(raw, source);
}

/** The `filters` query parameter: the filter object as JSON text. */
function filtersParameter(text: string | undefined): Record<string, FilterValue> | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw validationError(['query', 'filters'], 'Input should be a JSON object of filters', 'json_invalid', text);
  }
  return parseInput(z.object({ filters: searchFilters }), { filters: raw }, 'query').filters;
}

/** One page of the tenant's records, newest first, as GET /records answers it. */
async function listPage(records: RecordsService, tenantId: string, query: ListInput, data: Filter[] | undefined, source: 'query' | 'body'): Promise<RecordListAnswer> {
  const after = query.cursor === undefined ? undefined : decodeListCursor(query.cursor);
  if (query.cursor !== undefined && !after) {
    throw validationError([source, 'cursor'], 'Input should be a cursor returned by a previous page', 'value_error', query.cursor);
  }
  const q = query.q?.trim();
  const tsquery = q ? nameQuery(q) : undefined;
  // A query with no letters or digits names nothing, so it matches nothing rather than everything.
  if (q && !tsquery) return { items: [], cursor: null, has_more: false };
  const page = await records.list(tenantId, {
    status: query.status,
    collection: query.collection,
    recordType: query.record_type,
    nameQuery: tsquery,
    data,
    after,
    limit: query.limit,
  });
  const last = page.items.at(-1);
  return {
    items: page.items.map((r) => ({
      id: r.id,
      name: r.name,
      collection: r.collection,
      record_type: r.record_type,
      indexing_status: r.indexing_status,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    })),
    cursor: page.hasMore && last ? encodeListCursor({ createdAt: last.created_at, id: last.id }) : null,
    has_more: page.hasMore,
  };
}

/** The declarations a vocabulary's record handlers read their requests with (RECORD_CREATE, ENTITY_CREATE, …). */
type Creating = Endpoint & { body: z.ZodType<CreateRecordInput> };
type Listing = Endpoint & { query: z.ZodType<z.output<typeof recordListQuery>> };
type Updating = Endpoint & { params: typeof recordIdParams; body: z.ZodType<RecordUpdate> };

/**
 * POST /records and POST /entities: the record's body is read in the vocabulary of E. A record created through the
 * older vocabulary answers at once, pending, and is indexed by the pipeline's jobs; one created through the current
 * vocabulary answers once search has it.
 */
export function createHandler(records: RecordsService, v: RecordVocabulary, E: Creating): Handler {
  return v.handler(async (req, res) => {
    const body = v.parse(E.body, req.body, 'body');
    const record = await records.create(tenantOf(req), planOfRequest(req), body, v.queues);
    const answer = {
      id: record.id,
      name: record.name,
      collection: record.collection,
      record_type: record.record_type,
      visibility: record.visibility,
      collection_data: record.collection_data,
      indexing_status: record.indexing_status,
      created_at: record.created_at,
    };
    res.status(201).json({ ...v.names(answer), ...v.extras(record) });
  });
}

/** GET /records and GET /entities: a page of the tenant's records, asked and answered in the vocabulary of E. */
export function listHandler(records: RecordsService, v: RecordVocabulary, E: Listing): Handler {
  return v.handler(async (req, res) => {
    const query = v.parse(E.query, req.query, 'query');
    const page = await listPage(records, tenantOf(req), query, dataFiltersOf(filtersParameter(query.filters), 'query'), 'query');
    // The items in the route's vocabulary.
    res.json({ items: page.items.map((item) => v.names(item)), cursor: page.cursor, has_more: page.has_more });
  });
}

/**
 * PATCH /records/{id} and its twins (entities, the portal's, which may change less): answers once the search
 * representation is rebuilt (indexed), in both vocabularies (docs/behaviour/records.md, older-vocabulary.md).
 */
export function updateHandler(records: RecordsService, v: RecordVocabulary, E: Updating): Handler {
  return v.handler(async (req, res) => {
    const { id } = parseInput(E.params, req.params, 'path');
    const update = v.parse(E.body, req.body, 'body');
    res.json(recordIn(v, await records.update(tenantOf(req), planOfRequest(req), id, update)));
  });
}

/** DELETE /records/{id} and its twins (served: answers 204). */
export function archiveRecord(records: RecordsService) {
  return async ({ params }: { params: { id: string } }, req: Parameters<Handler>[0]): Promise<undefined> => {
    await records.archive(tenantOf(req), params.id);
    return undefined;
  };
}

export function recordRoutes(router: Router, records: RecordsService): void {
  const scope = requireScope('records');
  handle(router, RECORD_CREATE, scope, createHandler(records, CURRENT, RECORD_CREATE));
  handle(router, RECORD_LIST, scope, listHandler(records, CURRENT, RECORD_LIST));

  serve(router, RECORDS_LIST, [scope], ({ body }, req) => listPage(records, tenantOf(req), body, dataFiltersOf(body.filters, 'body'), 'body'));

  serve(router, RECORD_READ, [scope], ({ params }, req) => records.get(tenantOf(req), params.id));
  handle(router, RECORD_UPDATE, scope, updateHandler(records, CURRENT, RECORD_UPDATE));
  serve(router, RECORD_ARCHIVE, [scope], archiveRecord(records));
}
