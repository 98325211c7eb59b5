import { z } from 'zod';
import { endpoint } from './endpoint';
import { collectionVocabulary } from './vocabulary';
import { collectionData, collectionName, recordDescription, recordName, recordType, sourceId, sourceName, sourceType, sourceUrl } from './records';

export const BULK_UPSERT_MAX_ITEMS = 1000;
/**
 * The largest bulk-upsert body records reads: 1,000 records of up to 50,000-character descriptions and free-form data
 * outgrow the service-wide JSON limit. A writer keeps its chunks well under it (by bytes as well as by count).
 */
export const BULK_UPSERT_MAX_BYTES = 64 * 1024 * 1024;

/** A record to write, held to the same rules as POST /records, so a record the API refuses cannot enter through an upload. */
export const bulkUpsertItem = z.strictObject({
  name: recordName,
  /** A stored record of the collection with this source_id is updated (upsert) unless its content is identical. */
  source_id: sourceId.min(1).nullish(),
  collection_data: collectionData.default({}),
  description: recordDescription.nullish(),
  source_url: sourceUrl.nullish(),
});
export type BulkUpsertItem = z.input<typeof bulkUpsertItem>;

export const bulkUpsertRequest = z.strictObject({
  collection: collectionName,
  record_type: recordType,
  source_type: sourceType,
  source_name: sourceName.nullish(),
  records: z.array(bulkUpsertItem).min(1).max(BULK_UPSERT_MAX_ITEMS),
  /**
   * Count the indexing backlog only up to this many (pending_indexing is then at most this): a caller comparing it
   * with a threshold needs no more, and counting a backlog of millions after every chunk would cost more than the
   * chunk. Without it the whole backlog is counted.
   */
  backlog_count_limit: z.number().int().min(1).optional(),
  /**
   * Write into this staging generation of a blue-green replace (replace.ts) instead of the active one: the chunk
   * dedups and matches source ids only among the staging records. 409 unless it is the collection's staging
   * generation and its upload is not finished.
   */
  generation: z.number().int().min(1).optional(),
  /**
   * Index the written records through the older vocabulary's asynchronous pipeline (records.changed `pipeline`): they
   * stay pending until a pipeline job takes them.
   */
  pipeline: z.boolean().optional(),
  /** The vocabulary a collection this chunk creates names itself in (default current); an existing one keeps its own. */
  vocabulary: collectionVocabulary.optional(),
});
export type BulkUpsertRequest = z.input<typeof bulkUpsertRequest>;

/**
 * One result per item, in request order. `skipped`: identical content (name and collection_data) to the stored record
 * with the same source_id or, without source_id, to a stored record of the same collection and record type, or to an
 * earlier item of the same chunk. `refused`: a new record past the plan of the identity the call carries (its record
 * or collection limit); the chunk's other items are still written, and the caller dead-letters it with the reason.
 */
export const bulkUpsertResult = z.union([
  z.object({
    status: z.enum(['created', 'updated', 'skipped']),
    id: z.string(),
  }),
  /** A new record the tenant's plan does not allow (record or collection limit): not written, with the reason. */
  z.object({
    status: z.literal('refused'),
    reason: z.string(),
  }),
]);
export const bulkUpsertResponse = z.object({
  results: z.array(bulkUpsertResult),
  /** The tenant's records waiting to be indexed (pending or processing) after this write, up to backlog_count_limit. */
  pending_indexing: z.number().int(),
});
export type BulkUpsertResponse = z.infer<typeof bulkUpsertResponse>;

/**
 * Ingestion writes records through records' bulk endpoint: one call and one transaction per chunk, acting with the
 * uploading tenant's identity. The chunk is written whole or not at all; a 422 names the invalid items and nothing of
 * the chunk is applied. The body may reach BULK_UPSERT_MAX_BYTES.
 */
export const RECORDS_BULK_UPSERT = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/bulk-upsert',
  summary: "Writes one chunk of an upload's records in one transaction",
  body: bulkUpsertRequest,
  answer: bulkUpsertResponse,
  refusals: [402, 404, 409, 413, 422],
});

/**
 * The older pipeline routes (ingestion's /pipeline) ask records about the records an upload wrote, by id, at most
 * RECORD_IDS_MAX per call; ids of other tenants or of deleted records are simply not counted.
 */
export const RECORD_IDS_MAX = 10_000;

export const recordIdsRequest = z.strictObject({ ids: z.array(z.uuid()).min(1).max(RECORD_IDS_MAX) });
export type RecordIdsRequest = z.infer<typeof recordIdsRequest>;

/** How many of the records are at each indexing status. */
export const indexingSummary = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  processing: z.number().int(),
  indexed: z.number().int(),
  failed: z.number().int(),
});
export type IndexingSummary = z.infer<typeof indexingSummary>;

/** Live records among the ids that were pending or failed, queued for indexing again with a new version. */
export const requeueResponse = z.object({ requeued: z.number().int() });

/** How many of the records (by id) are at each indexing status. */
export const RECORDS_INDEXING_SUMMARY = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/indexing-summary',
  summary: 'How many of the given records are at each indexing status',
  body: recordIdsRequest,
  answer: indexingSummary,
});

/** Queues the given records for indexing again; answers how many were. */
export const RECORDS_REQUEUE = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/requeue',
  summary: 'Queues the given records for indexing again',
  body: recordIdsRequest,
  answer: requeueResponse,
});

/** A record an upload could not store, with why: the dead letter an upload result and its error list show. */
export const deadLetter = z.object({
  /** The record's position in the upload (the batch's list, the file's rows or lines), from 0. */
  record_index: z.number().int(),
  error: z.string(),
  /** What was sent: the submitted object, or `{value}` holding anything else (an NDJSON line that is not an object). */
  record_data: z.record(z.string(), z.unknown()),
});

/** Every submitted record is accounted for once: accepted (created or updated), rejected, or skipped as a duplicate. */
export const uploadSummary = z.object({
  submitted: z.number().int(),
  accepted: z.number().int(),
  rejected: z.number().int(),
  dedup_skipped: z.number().int(),
});

/**
 * The result of an upload that read all it was sent (batch, webhook, file, PDF, connector pull): its counts, its
 * first dead letters, and whether every record it counted as accepted was confirmed written.
 */
export const uploadResult = z.object({
  upload_id: z.uuid(),
  status: z.literal('complete'),
  summary: uploadSummary,
  /** The first dead letters by record_index, at most 100; the upload's error list holds them all. */
  errors: z.array(deadLetter),
  metadata: z.object({
    processing_time_ms: z.number(),
    /** `sha256:<hex>` of the bytes sent (the body, or the file's own bytes). */
    file_hash: z.string(),
    /** False when part of the upload could not be written (it is retried by sending it again). */
    reconciliation_passed: z.boolean(),
    /** The tenant's indexing backlog was above the threshold: new records become searchable later. */
    pipeline_backpressure: z.boolean(),
  }),
});
export type UploadResult = z.infer<typeof uploadResult>;

/** An NDJSON request body: one JSON object per line, read line by line. */
export const NDJSON_MEDIA_TYPES = ['application/x-ndjson', 'application/ndjson'] as const;

/**
 * One connector pull's rows, NDJSON as the connector reads them, become one upload with source_type `connector` (dedup, upsert by source_id and dead letters as for any upload; a row without a
 * name_column value is a dead letter). The body has no size limit of its own. Only the connector service may call it
 * (any other caller is answered 404, as for an unknown route).
 */
export const INGESTION_CONNECTOR_UPLOAD = endpoint({
  service: 'ingestion',
  method: 'POST',
  path: '/internal/ingestion/connector-upload',
  summary: "Ingests one connector pull's rows, sent as NDJSON, as one upload",
  consumes: NDJSON_MEDIA_TYPES,
  query: z.object({
    collection: collectionName,
    record_type: recordType,
    /** The connector's name, kept as the records' source_name. */
    source_name: sourceName.min(1).optional(),
    /** The row field holding the record's name; `name` unless said. */
    name_column: z.string().trim().min(1).max(200).optional(),
  }),
  body: z
    .array(z.unknown().describe('One row of the pull: a JSON object whose name_column field names the record; any other line is a dead letter'))
    .describe('NDJSON: one JSON object per line'),
  status: 201,
  answer: uploadResult,
  refusals: [400, 404, 415],
});
