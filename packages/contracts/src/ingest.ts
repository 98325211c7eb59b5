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
