import { z } from 'zod';
import {
  collectionData,
  collectionName,
  RECORDS_LIST_PATH,
  parseFilters,
  queryInteger,
  recordDescription,
  recordName,
  recordStatus,
  recordType,
  sourceId,
  sourceName,
  sourceUrl,
  searchFilters,
  storableText,
  visibility,
  type Filter,
  type FilterValue,
} from '@trove/contracts';
import { ERRORS, parseInput, requireScope, tenantOf, validationError, type Router } from '@trove/platform';
import { decodeCursor, encodeCursor } from '../domain/cursor';
import { nameQuery } from '../domain/search-terms';
import { planOfRequest, type Handler } from '../http';
import type { RecordsService } from '../records-service';
import { idParams, recordUpdate } from './request-schemas';
import { CURRENT, recordIn, type RecordFields, type RecordVocabulary } from './vocabulary';

/** Unknown fields are refused (422 extra_forbidden) so a misspelt field never silently falls back to a default. */
const createBody = z.strictObject({
  name: recordName,
  collection: collectionName,
  record_type: recordType,
  collection_data: collectionData.default({}),
  visibility: visibility.optional(),
  description: recordDescription.optional(),
  status: z.enum(['active', 'draft']).default('active'),
  source_name: sourceName.optional(),
  source_id: sourceId.optional(),
  source_url: sourceUrl.optional(),
});

const limit = queryInteger(1, 100, 20);

/** Unknown query parameters are ignored, as caches and proxies add their own. */
const listQuery = z.object({
  collection: collectionName.optional(),
  record_type: recordType.optional(),
  q: storableText(500).optional(),
  status: recordStatus.default('active'),
  limit,
  cursor: z.string().optional(),
  filters: z.string().optional(),
});

/** The same parameters as a JSON body, for other services: filters of any size fit in a body, not in a URL. */
const listBody = z.strictObject({
  collection: collectionName.optional(),
  record_type: recordType.optional(),
  q: storableText(500).optional(),
  status: recordStatus.default('active'),
  limit: z.int().min(1).max(100).default(20),
  cursor: z.string().optional(),
  filters: searchFilters.optional(),
});

type ListInput = Omit<z.output<typeof listBody>, 'filters'>;

/** `filters` of the list: an object in the filter syntax of search (parseFilters); one that cannot apply is a 422 naming it. */
function dataFiltersOf(raw: Record<string, FilterValue> | undefined, source: 'query' | 'body'): Filter[] | undefined {
  if (raw === undefined) return undefined;
  const { filters, issues } = parseFilters(raw);
  if (issues.length > 0) {
    throw ERRORS.validation(issues.map((i) => ({ loc: [source, 'filters', i.key], msg: i.msg, type: i.type, input: i.input ?? null, ctx: {} })));
  }
  return filters;
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

/** One page of the tenant's records, newest first, as GET /records answers it (items in the route's vocabulary). */
async function listPage(records: RecordsService, tenantId: string, query: ListInput, data: Filter[] | undefined, source: 'query' | 'body', v: RecordVocabulary = CURRENT) {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
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
    items: page.items.map((r) =>
      v.names({
        id: r.id,
        name: r.name,
        collection: r.collection,
        record_type: r.record_type,
        indexing_status: r.indexing_status,
        created_at: r.created_at.toISOString(),
        updated_at: r.updated_at.toISOString(),
      }),
    ),
    cursor: page.hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    has_more: page.hasMore,
  };
}

/**
 * The key-authenticated record handlers in one vocabulary: /records routes them with CURRENT, /entities (routes/
 * entities.ts) with OLDER. A record created through the older vocabulary answers at once, pending, and is indexed by
 * the pipeline's jobs; one created through the current vocabulary answers once search has it.
 */
export function recordHandlers(
  records: RecordsService,
  v: RecordVocabulary,
  /** What an update may change (the portal's is a part of it). */
  updates: z.ZodObject = recordUpdate,
): Record<'create' | 'list' | 'read' | 'update' | 'archive', Handler> {
  // A field the vocabulary does not add is refused like any unknown one; typed as added, it is optional either way.
  const fields = v.recordFields as RecordFields;
  const createSchema = createBody.extend(fields);
  const updateSchema = (updates as typeof recordUpdate).extend(fields);
  return {
    create: v.handler(async (req, res) => {
      const body = v.parse(createSchema, req.body, 'body');
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
    }),
    list: v.handler(async (req, res) => {
      const query = v.parse(listQuery, req.query, 'query');
      const data = dataFiltersOf(filtersParameter(query.filters), 'query');
      res.json(await listPage(records, tenantOf(req), query, data, 'query', v));
    }),
    read: v.handler(async (req, res) => {
      const { id } = parseInput(idParams, req.params, 'path');
      res.json(recordIn(v, await records.get(tenantOf(req), id)));
    }),
    /** Answers once the search representation is rebuilt (indexed), in both vocabularies (spec, Indexing status). */
    update: v.handler(async (req, res) => {
      const { id } = parseInput(idParams, req.params, 'path');
      const update = v.parse(updateSchema, req.body, 'body');
      res.json(recordIn(v, await records.update(tenantOf(req), planOfRequest(req), id, update)));
    }),
    archive: v.handler(async (req, res) => {
      const { id } = parseInput(idParams, req.params, 'path');
      await records.archive(tenantOf(req), id);
      res.status(204).end();
    }),
  };
}

export function recordRoutes(router: Router, records: RecordsService): void {
  const handlers = recordHandlers(records, CURRENT);
  router.post('/records', requireScope('records'), handlers.create);
  router.get('/records', requireScope('records'), handlers.list);

  router.post(RECORDS_LIST_PATH, requireScope('records'), async (req, res) => {
    const body = parseInput(listBody, req.body ?? {}, 'body');
    res.json(await listPage(records, tenantOf(req), body, dataFiltersOf(body.filters, 'body'), 'body'));
  });

  router.get('/records/:id', requireScope('records'), handlers.read);
  router.patch('/records/:id', requireScope('records'), handlers.update);
  router.delete('/records/:id', requireScope('records'), handlers.archive);
}
