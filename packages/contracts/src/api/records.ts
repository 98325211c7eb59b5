import { z } from 'zod';
import { endpoint, withKey, withPortalToken, type Endpoint } from '../endpoint';
import { PLANS } from '../plans';
import { queryInteger } from '../query-params';
import {
  claimStatus,
  collectionData,
  collectionName,
  collectionSummary,
  collectionsAnswer,
  recordDescription,
  recordName,
  recordSchema,
  recordStatus,
  recordType,
  sourceId,
  sourceName,
  sourceUrl,
  storableText,
  visibility,
} from '../records';
import { cancelReplaceResult, replaceStatusAnswer, swapResult } from '../replace';
import { searchFilters } from '../search';
import { OLDER_NAMES, inOlderNames, olderName } from '../vocabulary';
import { collectionParams } from './search';

/*
 * The records service's public endpoints: records (and entities, the same records in the older vocabulary), their
 * collections, bulk calls, visibility, the admin stats and reindex, exports, and the portal's views of all of these.
 * An older vocabulary's declaration reads its request with the current schema under the older names (inOlderNames:
 * the same rules, parsing into the current names) and answers under the older names (olderAnswer below).
 */

// ---------------------------------------------------------------------------------------------------------------
// Request parts

/** Ids a bulk call may name at once, the same for every bulk call (docs/behaviour/records.md). */
export const BULK_RECORD_IDS_MAX = 1000;

/** A path naming one record (`/records/{id}`). */
export const recordIdParams = z.object({ id: z.guid() });

/** A path naming one of the portal's collections (`/portal/collections/{name}`). */
export const collectionNameParams = z.object({ name: collectionName });

const recordIds = z.array(z.guid()).min(1).max(BULK_RECORD_IDS_MAX);

/** The older vocabulary's own field of a record's body (PATCH and POST /entities); the current routes refuse it. */
const olderRecordFields = { claim_status: claimStatus.optional() };

/**
 * POST /records. Unknown fields are refused (422 extra_forbidden) so a misspelt field never silently falls back to a
 * default.
 */
export const recordCreateRequest = z.strictObject({
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

/**
 * What PATCH /records/{id} and PATCH /records/bulk may change. `collection` and `source_id` identify a record's place
 * and origin and are not changeable; unknown fields are refused rather than ignored, so a typo never passes silently.
 */
export const recordUpdateRequest = z.strictObject({
  name: recordName.optional(),
  description: recordDescription.nullable().optional(),
  record_type: recordType.optional(),
  /** Merged into the stored object at the top level; a key given as null is removed. */
  collection_data: collectionData.optional(),
  visibility: visibility.optional(),
  status: z.enum(['active', 'draft']).optional(),
  source_name: sourceName.nullable().optional(),
  source_url: sourceUrl.nullable().optional(),
});

/**
 * What the portal may change of a record (docs/behaviour/portal-data.md: name, collection_data merged, visibility,
 * source_name); nothing else.
 */
export const portalRecordUpdateRequest = recordUpdateRequest.pick({ name: true, collection_data: true, visibility: true, source_name: true });

/** GET /records's parameters. Unknown query parameters are ignored, as caches and proxies add their own. */
export const recordListQuery = z.object({
  collection: collectionName.optional(),
  record_type: recordType.optional(),
  /** Words of the record's name. */
  q: storableText(500).optional(),
  status: recordStatus.default('active'),
  limit: queryInteger(1, 100, 20),
  /** The `cursor` of the previous page. */
  cursor: z.string().optional(),
  /** collection_data filters: a JSON object in search's filter syntax. */
  filters: z.string().optional(),
});

/** The same parameters as a JSON body, for other services (RECORDS_LIST): filters of any size fit in a body, not in a URL. */
export const recordListRequest = z.strictObject({
  collection: collectionName.optional(),
  record_type: recordType.optional(),
  q: storableText(500).optional(),
  status: recordStatus.default('active'),
  limit: z.int().min(1).max(100).default(20),
  cursor: z.string().optional(),
  filters: searchFilters.optional(),
});

const visibilityRequest = z.strictObject({ visibility });
const defaultVisibilityRequest = z.strictObject({ default_visibility: visibility });
const bulkUpdateRequest = z.strictObject({ record_ids: recordIds, update: recordUpdateRequest });
const bulkDeleteRequest = z.strictObject({ record_ids: recordIds });

// ---------------------------------------------------------------------------------------------------------------
// Answers

/** What POST /records answers of the record it created. */
const recordCreated = recordSchema.pick({
  id: true,
  name: true,
  collection: true,
  record_type: true,
  visibility: true,
  collection_data: true,
  indexing_status: true,
  created_at: true,
});

/** One record of GET /records's page. */
export const recordListItem = recordSchema.pick({
  id: true,
  name: true,
  collection: true,
  record_type: true,
  indexing_status: true,
  created_at: true,
  updated_at: true,
});

const listAnswer = <I extends z.ZodType>(item: I) =>
  z.object({
    /** Newest first. */
    items: z.array(item),
    /** Where the next page starts; null on the last page. */
    cursor: z.string().nullable(),
    has_more: z.boolean(),
  });

/** GET /records's answer, and RECORDS_LIST's. */
export const recordListAnswer = listAnswer(recordListItem);
export type RecordListAnswer = z.infer<typeof recordListAnswer>;

/** An indexing status as the older vocabulary says it (`embedding_status`): `completed` for indexed. */
export const embeddingStatus = z.enum(['pending', 'processing', 'completed', 'failed']);

type OlderNames = typeof OLDER_NAMES;
type OlderKey<K extends PropertyKey> = K extends keyof OlderNames ? OlderNames[K] : K;
type InOlderNames<S extends z.core.$ZodShape> = { [K in keyof S as OlderKey<K>]: K extends 'indexing_status' ? typeof embeddingStatus : S[K] };

/** An answer's schema in the older vocabulary, as withOlderNames writes the answer: fields renamed, `completed` for indexed. */
function olderAnswer<S extends z.core.$ZodShape>(schema: z.ZodObject<S>): z.ZodObject<InOlderNames<S>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) shape[olderName(key)] = key === 'indexing_status' ? embeddingStatus : (field as z.ZodType);
  // The shape's type is InOlderNames<S>, key by key; TypeScript cannot follow a rename done in a loop.
  return z.object(shape) as unknown as z.ZodObject<InOlderNames<S>>;
}

/** What an entity shows besides a record's fields under their older names (docs/behaviour/older-vocabulary.md). */
const entityExtras = {
  /** Unclaimed until a client sets it. */
  claim_status: claimStatus,
  /** How complete the entity's data is, 0..1. */
  data_quality_score: z.number(),
};

/** A full entity: GET /entities/{id}'s answer, the older vocabulary's twin of recordSchema. */
export const entitySchema = olderAnswer(recordSchema).extend(entityExtras);
export type Entity = z.infer<typeof entitySchema>;

const entityCreated = olderAnswer(recordCreated).extend(entityExtras);
const entityListAnswer = listAnswer(olderAnswer(recordListItem));

const count = z.number().int();

const adminStatsAnswer = z.object({
  total_records: count,
  records_by_status: z.object({ active: count, archived: count, draft: count }),
  indexing_status: z.object({ indexed: count, pending: count, processing: count, failed: count }),
  /** The tenant's records awaiting indexing plus the record changes, of every tenant, search has yet to read. */
  queue_depth: count,
});

const exportStatus = z.object({
  export_id: z.string(),
  status: z.enum(['processing', 'completed', 'failed']),
  /** Records written so far. */
  progress: count,
  /** Records the export holds. */
  total: count,
  /** Why it failed; only on a failed export. */
  error: z.string().optional(),
});

const exportFormat = z.enum(['csv', 'json']);

/**
 * One collection as the portal lists it: its active generation's active records, whether a replace is staged, and the
 * visibility its new records take (set with PORTAL_COLLECTION_DEFAULT_VISIBILITY or COLLECTION_DEFAULT_VISIBILITY).
 */
const portalCollection = collectionSummary
  .omit({ record_type_counts: true })
  .extend({ has_pending_replace: z.boolean(), default_visibility: visibility });

// ---------------------------------------------------------------------------------------------------------------
// Records (the current vocabulary)

export const RECORD_CREATE = endpoint({
  service: 'records',
  method: 'POST',
  path: '/records',
  summary: 'Creates a record; answers once search has it (or still pending when indexing is slow)',
  exposed: withKey('records'),
  body: recordCreateRequest,
  example: {
    name: 'Hex bolt M8x40',
    collection: 'products',
    record_type: 'product',
    collection_data: { ean: '4006381333931', standard: 'DIN 933', material: 'steel', price: 0.42 },
    visibility: 'public',
    source_id: 'SKU-1001',
  },
  status: 201,
  answer: recordCreated,
  refusals: [402, 409],
});

export const RECORD_LIST = endpoint({
  service: 'records',
  method: 'GET',
  path: '/records',
  summary: "Lists the caller's records newest first, a page at a time, by collection, type, name words and data filters",
  exposed: withKey('records'),
  query: recordListQuery,
  answer: recordListAnswer,
});

export const RECORD_READ = endpoint({
  service: 'records',
  method: 'GET',
  path: '/records/:id',
  summary: 'One record in full',
  exposed: withKey('records'),
  params: recordIdParams,
  answer: recordSchema,
  refusals: [404],
});

export const RECORD_UPDATE = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/records/:id',
  summary: "Changes a record's fields (collection_data merged); answers the record once search has it",
  exposed: withKey('records'),
  params: recordIdParams,
  body: recordUpdateRequest,
  example: { collection_data: { price: 0.45, discontinued: null }, visibility: 'private' },
  answer: recordSchema,
  refusals: [402, 404, 409],
});

export const RECORD_ARCHIVE = endpoint({
  service: 'records',
  method: 'DELETE',
  path: '/records/:id',
  summary: 'Archives (soft-deletes) a record: gone from search and listings',
  exposed: withKey('records'),
  params: recordIdParams,
  status: 204,
  answer: z.undefined(),
  refusals: [404],
});

export const RECORD_VISIBILITY = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/records/:id/visibility',
  summary: "Makes a record public (in the Open API) or private; answers once the public index reflects it",
  exposed: withKey('records'),
  params: recordIdParams,
  body: visibilityRequest,
  example: { visibility: 'public' },
  answer: z.object({ id: z.string(), visibility }),
  refusals: [404, 409],
});

export const RECORD_BULK_UPDATE = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/records/bulk',
  summary: "Applies one change to many of the caller's records in one write; answers how many it counted",
  exposed: withKey('records'),
  body: bulkUpdateRequest,
  example: { record_ids: ['0b6f3c8e-6a47-4c6e-9f0e-2f1d8c3b7a51'], update: { status: 'draft' } },
  answer: z.object({ updated: count }),
  refusals: [402],
});

export const RECORD_BULK_DELETE = endpoint({
  service: 'records',
  method: 'POST',
  path: '/records/bulk-delete',
  summary: "Archives many of the caller's records in one write; answers how many were archived now",
  exposed: withKey('records'),
  body: bulkDeleteRequest,
  example: { record_ids: ['0b6f3c8e-6a47-4c6e-9f0e-2f1d8c3b7a51', '5d2c9a4b-1e7f-4b3a-8c6d-9e0f1a2b3c4d'] },
  answer: z.object({ deleted: count }),
});

export const RECORD_BULK_VISIBILITY = endpoint({
  service: 'records',
  method: 'POST',
  path: '/records/bulk-visibility',
  summary: "Sets the visibility of many of the caller's records in one write; answers how many it counted",
  exposed: withKey('records'),
  body: z.strictObject({ record_ids: recordIds, visibility }),
  example: { record_ids: ['0b6f3c8e-6a47-4c6e-9f0e-2f1d8c3b7a51'], visibility: 'public' },
  answer: z.object({ updated: count }),
});

export const RECORD_RETRY_RESET = endpoint({
  service: 'records',
  method: 'POST',
  path: '/records/retry-reset',
  summary: "Queues every record whose indexing failed for indexing again; answers how many",
  exposed: withKey('records'),
  answer: z.object({ reset: count }),
});

// ---------------------------------------------------------------------------------------------------------------
// Collections

export const COLLECTION_LIST = endpoint({
  service: 'records',
  method: 'GET',
  path: '/collections',
  summary: "The caller's collections with their record types and counts by indexing status",
  exposed: withKey('records'),
  answer: collectionsAnswer,
});

export const COLLECTION_DEFAULT_VISIBILITY = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/collections/:collection/default-visibility',
  summary: "Sets the visibility a collection's new records take; existing records keep theirs",
  exposed: withKey('records'),
  params: collectionParams,
  body: defaultVisibilityRequest,
  example: { default_visibility: 'public' },
  answer: z.object({ collection: z.string(), default_visibility: visibility }),
});

// ---------------------------------------------------------------------------------------------------------------
// Entities: the records routes in the older vocabulary (vertical, entity_type, vertical_data, embedding_status, plus
// claim_status and data_quality_score). An entity is created pending and indexed by the pipeline's jobs.

export const ENTITY_CREATE = endpoint({
  ...RECORD_CREATE,
  path: '/entities',
  summary: 'Creates an entity (a record in the older vocabulary); answers at once, pending, and the pipeline indexes it',
  body: inOlderNames(recordCreateRequest.extend(olderRecordFields)),
  example: { name: 'Hex bolt M8x40', vertical: 'products', entity_type: 'product', vertical_data: { material: 'steel' }, claim_status: 'unclaimed' },
  answer: entityCreated,
});

export const ENTITY_LIST = endpoint({
  ...RECORD_LIST,
  path: '/entities',
  summary: 'Lists the caller\'s entities newest first, as GET /records does, in the older vocabulary',
  query: inOlderNames(recordListQuery),
  answer: entityListAnswer,
});

export const ENTITY_READ = endpoint({
  ...RECORD_READ,
  path: '/entities/:id',
  summary: 'One entity in full (a record in the older vocabulary)',
  answer: entitySchema,
});

export const ENTITY_UPDATE = endpoint({
  ...RECORD_UPDATE,
  path: '/entities/:id',
  summary: "Changes an entity's fields (vertical_data merged), as PATCH /records/{id} does, in the older vocabulary",
  body: inOlderNames(recordUpdateRequest.extend(olderRecordFields)),
  example: { vertical_data: { price: 0.45 }, claim_status: 'claimed' },
  answer: entitySchema,
});

export const ENTITY_ARCHIVE = endpoint({
  ...RECORD_ARCHIVE,
  path: '/entities/:id',
  summary: 'Archives (soft-deletes) an entity',
});

export const ENTITY_BULK_UPDATE = endpoint({
  ...RECORD_BULK_UPDATE,
  path: '/entities/bulk',
  summary: "Applies one change to many of the caller's entities in one write, as PATCH /records/bulk does",
  body: inOlderNames(z.strictObject({ record_ids: recordIds, update: recordUpdateRequest.extend(olderRecordFields) })),
  example: { entity_ids: ['0b6f3c8e-6a47-4c6e-9f0e-2f1d8c3b7a51'], update: { status: 'draft' } },
});

export const ENTITY_BULK_DELETE = endpoint({
  ...RECORD_BULK_DELETE,
  path: '/entities/bulk-delete',
  summary: "Archives many of the caller's entities in one write",
  body: inOlderNames(bulkDeleteRequest),
  example: { entity_ids: ['0b6f3c8e-6a47-4c6e-9f0e-2f1d8c3b7a51'] },
});

export const ENTITY_RETRY_RESET = endpoint({
  ...RECORD_RETRY_RESET,
  path: '/entities/retry-reset',
  summary: "Queues every entity whose indexing failed for the pipeline's jobs again; answers how many",
});

// ---------------------------------------------------------------------------------------------------------------
// Admin and exports (admin scope)

export const ADMIN_STATS = endpoint({
  service: 'records',
  method: 'GET',
  path: '/admin/stats',
  summary: "The caller's records by status and by indexing status, and how far indexing is behind",
  exposed: withKey('admin'),
  answer: adminStatsAnswer,
});

export const ADMIN_REINDEX_RECORD = endpoint({
  service: 'records',
  method: 'POST',
  path: '/admin/reindex/record/:id',
  summary: 'Queues one record for indexing again',
  exposed: withKey('admin'),
  params: recordIdParams,
  answer: z.object({ record_id: z.string(), status: z.literal('pending'), message: z.string() }),
  refusals: [404, 409],
});

export const ADMIN_REINDEX_COLLECTION = endpoint({
  service: 'records',
  method: 'POST',
  path: '/admin/reindex/:collection',
  summary: "Queues every live record of a collection for indexing again",
  exposed: withKey('admin'),
  params: collectionParams,
  answer: z.object({ collection: z.string(), records_reset: count, message: z.string() }),
  refusals: [404],
});

export const EXPORT_START = endpoint({
  service: 'records',
  method: 'POST',
  path: '/export',
  summary: "Starts exporting a collection's records as CSV or JSON; poll its status, then download it",
  exposed: withKey('admin'),
  /** Unknown query parameters are ignored, as caches and proxies add their own. */
  query: z.object({
    collection: collectionName,
    format: exportFormat.default('json'),
    /** The status of the records exported. */
    status: recordStatus.default('active'),
  }),
  status: 202,
  answer: exportStatus.pick({ export_id: true, status: true }),
  refusals: [404],
});

export const EXPORT_ACTIVE = endpoint({
  service: 'records',
  method: 'GET',
  path: '/export/active',
  summary: "The caller's exports still being written",
  exposed: withKey('admin'),
  answer: z.array(exportStatus.extend({ collection: z.string(), format: exportFormat, created_at: z.string() })),
});

/** A path naming one export. */
const exportIdParams = z.object({ id: z.guid() });

export const EXPORT_STATUS = endpoint({
  service: 'records',
  method: 'GET',
  path: '/export/:id/status',
  summary: "Where an export stands: processing (with its progress), completed or failed",
  exposed: withKey('admin'),
  params: exportIdParams,
  answer: exportStatus,
  refusals: [404],
});

export const EXPORT_DOWNLOAD = endpoint({
  service: 'records',
  method: 'GET',
  path: '/export/:id/download',
  summary: "A completed export's file, as an attachment: CSV, or a JSON array of the records in full",
  exposed: withKey('admin'),
  params: exportIdParams,
  produces: ['text/csv', 'application/json'],
  /** The JSON format's records, each as GET /records/{id} answers it; the CSV format's text. */
  answer: z.union([z.array(recordSchema), z.string()]),
  refusals: [404, 409],
});

// ---------------------------------------------------------------------------------------------------------------
// The portal (a signed-in person's view of their tenant)

export const PORTAL_COLLECTION_LIST = endpoint({
  service: 'records',
  method: 'GET',
  path: '/portal/collections',
  summary: "The tenant's collections with their counts, default visibility and staged replaces, and the plan's record limit",
  exposed: withPortalToken,
  answer: z.object({
    /** By name. */
    collections: z.array(portalCollection),
    plan: z.enum(PLANS),
    /** The plan's record limit; null when unlimited. */
    record_limit: count.nullable(),
    /** The tenant's active records of every collection's active generation. */
    total_records: count,
  }),
});

export const PORTAL_COLLECTION_ARCHIVE = endpoint({
  service: 'records',
  method: 'DELETE',
  path: '/portal/collections/:name',
  summary: "Archives every record of a collection; gone from search once this answers",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: z.object({ collection: z.string(), records_archived: count }),
  refusals: [404],
});

export const PORTAL_COLLECTION_REINDEX = endpoint({
  service: 'records',
  method: 'POST',
  path: '/portal/collections/:name/reindex',
  summary: "Queues every live record of a collection for indexing again",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: z.object({ collection: z.string(), records_queued: count }),
  refusals: [404],
});

export const PORTAL_COLLECTION_DEFAULT_VISIBILITY = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/portal/collections/:name/default-visibility',
  summary: "Sets a collection's default visibility and gives every active record of it that visibility",
  exposed: withPortalToken,
  params: collectionNameParams,
  body: defaultVisibilityRequest,
  example: { default_visibility: 'private' },
  answer: z.object({ collection: z.string(), default_visibility: visibility, records_updated: count }),
});

export const PORTAL_REPLACE_STATUS = endpoint({
  service: 'records',
  method: 'GET',
  path: '/portal/collections/:name/replace-status',
  summary: "Where a collection's staged replace stands, and whether it is ready to swap",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: replaceStatusAnswer,
  refusals: [404],
});

export const PORTAL_REPLACE_SWAP = endpoint({
  service: 'records',
  method: 'POST',
  path: '/portal/collections/:name/swap',
  summary: "Makes a collection's indexed staged replace the live one and deletes the old records",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: swapResult,
  refusals: [404, 409],
});

export const PORTAL_REPLACE_CANCEL = endpoint({
  service: 'records',
  method: 'POST',
  path: '/portal/collections/:name/cancel-replace',
  summary: "Drops a collection's staged replace, archiving its records; the live records are not touched",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: cancelReplaceResult,
  refusals: [404, 409],
});

export const PORTAL_RECORD_BROWSE = endpoint({
  service: 'records',
  method: 'GET',
  path: '/portal/records',
  summary: "Browses a collection's records newest first, by offset, with their data",
  exposed: withPortalToken,
  /** Unknown query parameters are ignored, as caches and proxies add their own. */
  query: z.object({
    collection: collectionName,
    record_type: recordType.optional(),
    limit: queryInteger(1, 100, 20),
    offset: queryInteger(0, 999_999_999, 0),
  }),
  answer: z.object({
    items: z.array(
      recordSchema.pick({
        id: true,
        name: true,
        description: true,
        collection: true,
        record_type: true,
        indexing_status: true,
        collection_data: true,
        created_at: true,
        updated_at: true,
      }),
    ),
    /** The collection's records matching, over every page. */
    total: count,
  }),
});

export const PORTAL_RECORD_READ = endpoint({
  ...RECORD_READ,
  path: '/portal/records/:id',
  summary: 'One record in full, as GET /records/{id} answers it',
  exposed: withPortalToken,
});

export const PORTAL_RECORD_UPDATE = endpoint({
  ...RECORD_UPDATE,
  path: '/portal/records/:id',
  summary: "Changes a record's name, collection_data (merged), visibility or source_name",
  exposed: withPortalToken,
  body: portalRecordUpdateRequest,
  example: { name: 'Hex bolt M8x40, zinc plated', collection_data: { finish: 'zinc' } },
  refusals: [404, 409],
});

export const PORTAL_RECORD_ARCHIVE = endpoint({
  ...RECORD_ARCHIVE,
  path: '/portal/records/:id',
  summary: 'Archives (soft-deletes) a record',
  exposed: withPortalToken,
});

export const PORTAL_RECORD_REINDEX = endpoint({
  service: 'records',
  method: 'POST',
  path: '/portal/records/:id/reindex',
  summary: 'Queues one record for indexing again (one indexing job)',
  exposed: withPortalToken,
  params: recordIdParams,
  answer: z.object({ record_id: z.string(), jobs: count }),
  refusals: [404, 409],
});

export const PORTAL_RECORD_VISIBILITY = endpoint({
  service: 'records',
  method: 'PATCH',
  path: '/portal/records/:id/visibility',
  summary: "Makes a record public or private; answers once the public index reflects it",
  exposed: withPortalToken,
  params: recordIdParams,
  body: visibilityRequest,
  example: { visibility: 'private' },
  answer: recordSchema.pick({ id: true, visibility: true, updated_at: true }),
  refusals: [404, 409],
});

// The older portal vocabulary: entities and verticals.

export const PORTAL_ENTITY_READ = endpoint({
  ...ENTITY_READ,
  path: '/portal/entities/:id',
  summary: 'One entity in full, as GET /entities/{id} answers it',
  exposed: withPortalToken,
});

export const PORTAL_ENTITY_UPDATE = endpoint({
  ...ENTITY_UPDATE,
  path: '/portal/entities/:id',
  summary: "Changes an entity's name, vertical_data (merged), visibility, source_name or claim_status",
  exposed: withPortalToken,
  body: inOlderNames(portalRecordUpdateRequest.extend(olderRecordFields)),
  example: { vertical_data: { finish: 'zinc' } },
  refusals: [404, 409],
});

export const PORTAL_ENTITY_ARCHIVE = endpoint({
  ...ENTITY_ARCHIVE,
  path: '/portal/entities/:id',
  summary: 'Archives (soft-deletes) an entity',
  exposed: withPortalToken,
});

export const PORTAL_VERTICAL_ARCHIVE = endpoint({
  service: 'records',
  method: 'DELETE',
  path: '/portal/verticals/:name',
  summary: 'Archives every entity of a vertical (a collection in the older vocabulary)',
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: z.object({ vertical: z.string(), entities_archived: count }),
  refusals: [404],
});

export const PORTAL_VERTICAL_REINDEX = endpoint({
  service: 'records',
  method: 'POST',
  path: '/portal/verticals/:name/reindex',
  summary: "Queues every live entity of a vertical for the pipeline's jobs again",
  exposed: withPortalToken,
  params: collectionNameParams,
  answer: z.object({ vertical: z.string(), entities_queued: count }),
  refusals: [404],
});

// ---------------------------------------------------------------------------------------------------------------
// Internal

/**
 * Where other services (MCP) list a tenant's records: GET /records's parameters as a JSON body (`limit` a number,
 * `filters` an object), so filters of any size fit; the answer is GET /records's.
 */
export const RECORDS_LIST = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/list',
  summary: "Lists the caller's records as GET /records does, its parameters in a JSON body",
  body: recordListRequest,
  answer: recordListAnswer,
});

/** Every public endpoint the records service answers. */
export const RECORDS_API: readonly Endpoint[] = [
  RECORD_CREATE,
  RECORD_LIST,
  RECORD_READ,
  RECORD_UPDATE,
  RECORD_ARCHIVE,
  RECORD_VISIBILITY,
  RECORD_BULK_UPDATE,
  RECORD_BULK_DELETE,
  RECORD_BULK_VISIBILITY,
  RECORD_RETRY_RESET,
  COLLECTION_LIST,
  COLLECTION_DEFAULT_VISIBILITY,
  ENTITY_CREATE,
  ENTITY_LIST,
  ENTITY_READ,
  ENTITY_UPDATE,
  ENTITY_ARCHIVE,
  ENTITY_BULK_UPDATE,
  ENTITY_BULK_DELETE,
  ENTITY_RETRY_RESET,
  ADMIN_STATS,
  ADMIN_REINDEX_RECORD,
  ADMIN_REINDEX_COLLECTION,
  EXPORT_START,
  EXPORT_ACTIVE,
  EXPORT_STATUS,
  EXPORT_DOWNLOAD,
  PORTAL_COLLECTION_LIST,
  PORTAL_COLLECTION_ARCHIVE,
  PORTAL_COLLECTION_REINDEX,
  PORTAL_COLLECTION_DEFAULT_VISIBILITY,
  PORTAL_REPLACE_STATUS,
  PORTAL_REPLACE_SWAP,
  PORTAL_REPLACE_CANCEL,
  PORTAL_RECORD_BROWSE,
  PORTAL_RECORD_READ,
  PORTAL_RECORD_UPDATE,
  PORTAL_RECORD_ARCHIVE,
  PORTAL_RECORD_REINDEX,
  PORTAL_RECORD_VISIBILITY,
  PORTAL_ENTITY_READ,
  PORTAL_ENTITY_UPDATE,
  PORTAL_ENTITY_ARCHIVE,
  PORTAL_VERTICAL_ARCHIVE,
  PORTAL_VERTICAL_REINDEX,
];
