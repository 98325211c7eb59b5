import { z } from 'zod';
import { endpoint, withKey, withPortalToken, type Endpoint, type OtherAnswer } from '../endpoint';
import { NDJSON_MEDIA_TYPES, deadLetter, uploadResult, uploadSummary } from '../ingest';
import { queryInteger } from '../query-params';
import { collectionName, recordType, sourceName, sourceType } from '../records';

/*
 * The upload routes answer in two vocabularies (docs/behaviour/older-vocabulary.md): the current one (`/upload/{collection}/
 * {record_type}`, `collection_data`, upload results, 201) and the older one (`/ingest/{vertical}/{entity_type}`,
 * `vertical_data`, ingestion results, 200). Both write through the same uploads; only names and answers differ, so
 * the declarations of a pair share their schemas.
 */

/**
 * The asynchronous answer of an upload (RFC 7240, docs/behaviour/ingestion.md "Asynchronous uploads"): with
 * `Prefer: respond-async` every upload route answers 202 with the upload's id once the body has arrived, and writes the
 * records after; GET /uploads/{upload_id} shows them being written. Any other preference, or none, is the answer as
 * specified.
 */
const preferHeader = z.object({
  prefer: z
    .string()
    .optional()
    .describe(
      '`respond-async` (RFC 7240): answer 202 with the upload id once the body has arrived, and write its records after (GET /uploads/{upload_id} shows their progress); other preferences are ignored',
    ),
});

/** A webhook's signature, required when the system sets WEBHOOK_SECRET: sha256=<hex HMAC-SHA256 of the raw body under it>. */
const webhookSignature = preferHeader.extend({ 'x-webhook-signature': z.string().regex(/^sha256=[0-9a-f]{64}$/i).optional() });

/** An upload taken with `Prefer: respond-async`: registered, its records still to be written. */
export const uploadAccepted = z.object({
  upload_id: z.uuid(),
  status: z.literal('processing'),
});

/** The same in the older vocabulary's words. */
export const ingestionAccepted = z.object({
  ingestion_id: z.uuid(),
  status: z.literal('processing'),
});

/** The 202 of an upload asked to answer asynchronously, with the header saying the preference was applied. */
function acceptedAnswer(answer: z.ZodType): Record<202, OtherAnswer> {
  return {
    202: {
      description:
        'Prefer: respond-async was applied: the body has arrived and the upload is registered; its records are being written (GET /uploads/{upload_id} shows how far)',
      answer,
      headers: { 'Preference-Applied': { description: 'The preference applied (RFC 7240)', required: true, schema: z.literal('respond-async') } },
    },
  };
}

/** The most records one batch (or webhook) body may hold. */
export const BATCH_MAX_RECORDS = 10_000;

/** The upload's target in the current vocabulary's paths: the collection and the record type, as records takes them. */
export const uploadTargetParams = z.object({ collection: collectionName, record_type: recordType });

/** The upload's target in the older vocabulary's paths: the vertical is the collection, the entity type the record type. */
export const ingestTargetParams = z.object({ vertical: collectionName, entity_type: recordType });

/** The optional label of an API upload's records (batch and webhook); a file upload's records carry the file name. */
export const sourceNameQuery = z.object({ source_name: sourceName.min(1).optional() });

type DataField = 'collection_data' | 'vertical_data';

/** What one submitted record is; checked one by one, so a bad one is a dead letter of the upload, never a refusal. */
function recordText(dataField: DataField): string {
  return (
    `A record: a JSON object with \`name\` (required), and optionally \`source_id\` (a stored record of the collection with ` +
    `the same source_id is updated), \`description\` and \`source_url\`; every other field, and those of a \`${dataField}\` ` +
    `object, are its ${dataField}. A record that is not valid is a dead letter of the upload, not a refusal`
  );
}

/** A batch (or webhook) body: the records in a list. The body is read (and hashed, and its signature checked) as sent. */
function batchBody(dataField: DataField) {
  return z.strictObject({ records: z.array(z.unknown().describe(recordText(dataField))).max(BATCH_MAX_RECORDS) });
}

/** Parse options of a file upload: form fields, or query parameters (a form field wins). */
export const fileUploadOptions = z.object({
  name_column: z.string().trim().min(1).max(200).optional().describe("The field (CSV column, JSON key, XML child element) holding each record's name; `name` unless said"),
  record_tag: z.string().trim().min(1).max(200).optional().describe("The name of the XML element that is one record, at any depth (the root element's children unless said)"),
});

const RECORD_FILE = 'The file, in the part named `file`: CSV, JSON (a list of records), NDJSON or XML, told apart by name, type and content';
const PDF_FILE = 'The PDF file, in the part named `file`: each page is read as one record';

/**
 * A file upload's form (multipart/form-data): the file and its parse options. The file is parsed while it arrives and
 * never stored; options sent after a file larger than 1 MB come too late for it (send them first, or in the query).
 */
function fileForm(file: string) {
  return fileUploadOptions.extend({ file: z.file().describe(file) });
}

const MULTIPART = ['multipart/form-data'] as const;

/** What a stream request did: its records joined the target's buffer, all of them (or none, answered 429). */
export const streamAnswer = z.object({
  /** Valid records of the request, now in the buffer. */
  accepted: z.number().int(),
  /** Lines that were not a JSON object or not a valid record; they become dead letters of the flush that takes them. */
  parse_errors: z.number().int(),
  /** Records in the target's buffer after this request (0 when it flushed them). */
  buffer_size: z.number().int(),
  /** The request filled a chunk and the buffer was written before the answer (X-Upload-Id names that upload). */
  flushed: z.boolean(),
});

/** The older vocabulary's ingestion result: the same upload, in the older API's words. */
export const ingestionResult = z.object({
  ingestion_id: z.uuid(),
  /** As the older API answered: the records are indexed by the pipeline afterwards. */
  status: z.literal('processing'),
  /** Records written (created or updated). */
  record_count: z.number().int(),
  /** Records skipped as identical to stored ones. */
  duplicate_count: z.number().int(),
  /** The ids of the records written, in submission order. */
  entity_ids: z.array(z.uuid()),
});

/** Batches as a caller sends them, for the reference. */
const BATCH_EXAMPLE: { records: unknown[] } = {
  records: [
    { name: 'Hex bolt M8x40', source_id: 'SKU-1001', ean: '4006381333931', material: 'steel', price: 0.42 },
    { name: 'Washer M8', source_id: 'SKU-1002', standard: 'DIN 125', material: 'steel' },
  ],
};
const OLDER_BATCH_EXAMPLE: { records: unknown[] } = {
  records: [{ name: 'Hex bolt M8x40', source_id: 'SKU-1001', vertical_data: { material: 'steel', price: 0.42 } }],
};

/** The batch upload's body and what it takes, for the current vocabulary's batch and webhook. */
const currentBatch = {
  service: 'ingestion',
  method: 'POST',
  exposed: withKey('upload'),
  params: uploadTargetParams,
  query: sourceNameQuery,
  body: batchBody('collection_data'),
  example: BATCH_EXAMPLE,
  headers: preferHeader,
  status: 201,
  answer: uploadResult,
  otherAnswers: acceptedAnswer(uploadAccepted),
  refusals: [400, 413, 415],
} as const;

/** The same for the older vocabulary's batch and webhook. */
const olderBatch = {
  ...currentBatch,
  params: ingestTargetParams,
  body: batchBody('vertical_data'),
  example: OLDER_BATCH_EXAMPLE,
  status: 200,
  answer: ingestionResult,
  otherAnswers: acceptedAnswer(ingestionAccepted),
} as const;

export const UPLOAD_BATCH = endpoint({
  ...currentBatch,
  path: '/upload/:collection/:record_type/batch',
  summary: 'Uploads a list of records (JSON, up to 10,000, 64 MB) into a collection as one upload',
});

/** With WEBHOOK_SECRET set, the body must be signed: header X-Webhook-Signature `sha256=<hex HMAC-SHA256 of the raw body>` (401 otherwise). */
export const WEBHOOK_UPLOAD = endpoint({
  ...currentBatch,
  path: '/webhooks/upload/:collection/:record_type',
  summary: 'Takes a pushed batch of records, signed in X-Webhook-Signature (sha256=<hex HMAC of the raw body>), as one upload',
  headers: webhookSignature,
});

const currentFile = {
  service: 'ingestion',
  method: 'POST',
  exposed: withKey('upload'),
  consumes: MULTIPART,
  params: uploadTargetParams,
  query: fileUploadOptions,
  headers: preferHeader,
  status: 201,
  answer: uploadResult,
  otherAnswers: acceptedAnswer(uploadAccepted),
  refusals: [413, 415],
} as const;

export const UPLOAD_FILE = endpoint({
  ...currentFile,
  path: '/upload/:collection/:record_type/upload',
  summary: "Uploads a CSV, JSON, NDJSON or XML file's records into a collection, read while the file arrives",
  body: fileForm(RECORD_FILE),
});

export const UPLOAD_PDF = endpoint({
  ...currentFile,
  path: '/upload/:collection/:record_type/pdf',
  summary: "Uploads a PDF file into a collection, one record per page",
  body: fileForm(PDF_FILE),
});

/** The portal's upload (a person signed in) is the same upload, limits and answers included. */
export const PORTAL_UPLOAD = endpoint({
  ...UPLOAD_FILE,
  path: '/portal/upload/:collection/:record_type/upload',
  summary: "Uploads a file's records into one of the signed-in tenant's collections, as POST /upload/{collection}/{record_type}/upload does",
  exposed: withPortalToken,
});

/**
 * With `Prefer: respond-async` a stream request is an upload of its own instead of joining the buffer: answered 202
 * once its body has arrived (up to UPLOAD_MAX_BYTES, any number of records), its lines written in chunks after.
 */
const streamUpload = {
  service: 'ingestion',
  method: 'POST',
  exposed: withKey('upload'),
  consumes: NDJSON_MEDIA_TYPES,
  headers: preferHeader,
  answer: streamAnswer,
  refusals: [400, 413, 415],
} as const;

/** NDJSON: one record per line. The header X-Upload-Id names the upload when the request flushed the buffer. */
function streamBody(dataField: DataField) {
  return z
    .array(z.unknown().describe(`${recordText(dataField)}; a line that is not one counts in parse_errors`))
    .describe('NDJSON: one JSON object per line');
}

export const UPLOAD_STREAM = endpoint({
  ...streamUpload,
  path: '/upload/:collection/:record_type/stream',
  summary: "Adds NDJSON records to the collection's stream buffer, written in chunks as it fills or on a timer",
  params: uploadTargetParams,
  body: streamBody('collection_data'),
  otherAnswers: acceptedAnswer(uploadAccepted),
});

export const INGEST_BATCH = endpoint({
  ...olderBatch,
  path: '/ingest/:vertical/:entity_type/batch',
  summary: 'Uploads a list of records into a vertical as one ingestion (older vocabulary of POST /upload/{collection}/{record_type}/batch)',
});

/** Signed as WEBHOOK_UPLOAD is. */
export const WEBHOOK_INGEST = endpoint({
  ...olderBatch,
  path: '/webhooks/ingest/:vertical/:entity_type',
  headers: webhookSignature,
  summary: 'Takes a pushed, signed batch of records as one ingestion (older vocabulary of POST /webhooks/upload/{collection}/{record_type})',
});

const olderFile = {
  ...currentFile,
  params: ingestTargetParams,
  status: 200,
  answer: ingestionResult,
  otherAnswers: acceptedAnswer(ingestionAccepted),
} as const;

export const INGEST_FILE = endpoint({
  ...olderFile,
  path: '/ingest/:vertical/:entity_type/upload',
  summary: "Uploads a CSV, JSON, NDJSON or XML file's records into a vertical (older vocabulary of POST /upload/{collection}/{record_type}/upload)",
  body: fileForm(RECORD_FILE),
});

export const INGEST_PDF = endpoint({
  ...olderFile,
  path: '/ingest/:vertical/:entity_type/pdf',
  summary: 'Uploads a PDF file into a vertical, one record per page (older vocabulary of POST /upload/{collection}/{record_type}/pdf)',
  body: fileForm(PDF_FILE),
});

export const INGEST_STREAM = endpoint({
  ...streamUpload,
  path: '/ingest/:vertical/:entity_type/stream',
  summary: "Adds NDJSON records to the vertical's stream buffer (older vocabulary of POST /upload/{collection}/{record_type}/stream)",
  params: ingestTargetParams,
  body: streamBody('vertical_data'),
  otherAnswers: acceptedAnswer(ingestionAccepted),
});

const timestamps = {
  created_at: z.iso.datetime(),
  /** Null while the upload is processing. */
  completed_at: z.iso.datetime().nullable(),
};

export const uploadStates = z.enum(['processing', 'complete', 'failed']);

/**
 * How far an upload has read what it was sent, of the whole where that is known. Written every fraction of a second
 * while it runs, so another process reads it too; final once the upload has ended.
 */
export const uploadProgress = z.object({
  /** Records (rows, lines, items) read so far: summary.submitted. */
  records_read: z.number().int(),
  /** Records in the upload, when known before they are read (a batch, a stream flush, a replace); else null. */
  records_total: z.number().int().nullable(),
  /** Bytes of the file or body read so far; null where the records arrived parsed (a batch, a webhook, a stream flush). */
  bytes_read: z.number().int().nullable(),
  /** Bytes of the file or body in all, when known (an upload answered asynchronously always knows); else null. */
  bytes_total: z.number().int().nullable(),
});

/** An upload as a list shows it: where its records go, its counts so far, its progress and how it went. */
export const uploadListItem = z.object({
  id: z.uuid(),
  status: uploadStates,
  collection: z.string(),
  record_type: z.string(),
  source_type: sourceType,
  source_name: z.string().nullable(),
  /** The counts so far while processing: submitted is what has been read, the others what has been written of it. */
  summary: uploadSummary,
  progress: uploadProgress,
  /** Why a failed upload stopped (a file found unparseable part-way, its process stopped); null otherwise. */
  failure: z.string().nullable(),
  metadata: z.object({
    processing_time_ms: z.number().nullable(),
    file_hash: z.string().nullable(),
    reconciliation_passed: z.boolean().nullable(),
    pipeline_backpressure: z.boolean().nullable(),
  }),
  ...timestamps,
});

/** An upload's status: as listed, with its first dead letters (null metadata while it is processing). */
export const uploadStatus = uploadListItem.extend({
  /** The first dead letters by record_index, at most 100; GET /uploads/{upload_id}/errors lists them all. */
  errors: z.array(deadLetter),
});

/** GET /uploads's parameters: the caller's uploads, newest first, of one status when asked. */
export const uploadListQuery = z.object({
  status: uploadStates.optional(),
  limit: queryInteger(1, 100, 20),
  /** The `cursor` of the previous page. */
  cursor: z.string().optional(),
});

export const uploadListAnswer = z.object({
  /** Newest first. */
  items: z.array(uploadListItem),
  /** Where the next page starts; null on the last page. */
  cursor: z.string().nullable(),
  has_more: z.boolean(),
});

/** An ingestion's status in the older vocabulary. */
export const ingestionStatus = z.object({
  id: z.uuid(),
  status: z.enum(['processing', 'completed', 'failed']),
  /** Records written (created or updated). */
  record_count: z.number().int(),
  duplicate_count: z.number().int(),
  /** Records rejected (dead letters). */
  error_count: z.number().int(),
  ...timestamps,
});

/** A path naming one of the caller's uploads. */
export const uploadParams = z.object({ upload_id: z.guid() });
/** A path naming one of the caller's uploads in the older vocabulary's words. */
export const ingestionParams = z.object({ ingestion_id: z.guid() });

/** The caller's uploads, newest first; `?status=processing` lists those running. A cursor not issued here is a 422. */
export const UPLOAD_LIST = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/uploads',
  summary: "The tenant's uploads, newest first, with their counts and progress (`?status=processing`: those running)",
  exposed: withKey('upload'),
  query: uploadListQuery,
  answer: uploadListAnswer,
});

/** Another tenant's upload is answered as a missing one (404). */
export const UPLOAD_STATUS = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/uploads/:upload_id',
  summary: "An upload's status: counts and progress (as they grow while it runs), first dead letters, processing time and hash",
  exposed: withKey('upload'),
  params: uploadParams,
  answer: uploadStatus,
  refusals: [404],
});

export const UPLOAD_ERRORS = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/uploads/:upload_id/errors',
  summary: "Every dead letter of an upload (the records it could not store, with why), in record order",
  exposed: withKey('upload'),
  params: uploadParams,
  answer: z.array(deadLetter),
  refusals: [404],
});

/** The portal's reads of the signed-in tenant's uploads: as /uploads reads them. */
export const PORTAL_UPLOAD_LIST = endpoint({
  ...UPLOAD_LIST,
  path: '/portal/uploads',
  summary: "The signed-in tenant's uploads, as GET /uploads lists them",
  exposed: withPortalToken,
});

export const PORTAL_UPLOAD_STATUS = endpoint({
  ...UPLOAD_STATUS,
  path: '/portal/uploads/:upload_id',
  summary: "One of the signed-in tenant's uploads, as GET /uploads/{upload_id} reads it",
  exposed: withPortalToken,
});

export const PORTAL_UPLOAD_ERRORS = endpoint({
  ...UPLOAD_ERRORS,
  path: '/portal/uploads/:upload_id/errors',
  summary: "Every dead letter of one of the signed-in tenant's uploads, as GET /uploads/{upload_id}/errors lists them",
  exposed: withPortalToken,
});

export const INGESTION_STATUS = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/ingestions/:ingestion_id',
  summary: "An ingestion's status and counts (older vocabulary of GET /uploads/{upload_id})",
  exposed: withKey('upload'),
  params: ingestionParams,
  answer: ingestionStatus,
  refusals: [404],
});

/** The dead letters show the record's explicit data under `vertical_data`. */
export const INGESTION_ERRORS = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/ingestions/:ingestion_id/errors',
  summary: 'Every dead letter of an ingestion, in record order (older vocabulary of GET /uploads/{upload_id}/errors)',
  exposed: withKey('upload'),
  params: ingestionParams,
  answer: z.array(deadLetter),
  refusals: [404],
});

/** Where the records an ingestion wrote stand in indexing; records deleted since are not counted. */
export const pipelineStatus = z.object({
  ingestion_id: z.uuid(),
  total: z.number().int(),
  pending: z.number().int(),
  processing: z.number().int(),
  /** Indexed: searchable. */
  completed: z.number().int(),
  failed: z.number().int(),
});

export const pipelineTrigger = z.object({
  /** Records queued for indexing again (those pending or failed). */
  triggered: z.number().int(),
  message: z.string(),
});

export const PIPELINE_STATUS = endpoint({
  service: 'ingestion',
  method: 'GET',
  path: '/pipeline/status/:ingestion_id',
  summary: "How many of an ingestion's records are pending, processing, indexed or failed",
  exposed: withKey('upload'),
  params: ingestionParams,
  answer: pipelineStatus,
  refusals: [404],
});

export const PIPELINE_TRIGGER = endpoint({
  service: 'ingestion',
  method: 'POST',
  path: '/pipeline/trigger/:ingestion_id',
  summary: "Queues an ingestion's pending and failed records for indexing again",
  exposed: withKey('upload'),
  params: ingestionParams,
  answer: pipelineTrigger,
  refusals: [404],
});

/** A replace upload's query: where its records go, and the file's parse options (a form field wins over these). */
export const replaceUploadQuery = z.object({
  record_type: recordType,
  source_name: sourceName.min(1).optional().describe("The records' source_name (the file name unless said)"),
  ...fileUploadOptions.shape,
});

const replaceStaging = z.object({
  generation: z.number().int(),
  status: z.literal('staging'),
  collection: z.string(),
});

/** The upload result of a replace, with the staging generation its records were written into. */
export const replaceUploadAnswer = uploadResult.extend({ staging: replaceStaging });

/** A replace taken with `Prefer: respond-async`: counted and its staging opened, its records still to be written. */
export const replaceAccepted = uploadAccepted.extend({ staging: replaceStaging });

/**
 * Blue-green replace: the file becomes a staging generation of the collection, swapped in or cancelled later (records'
 * portal routes). The file is counted before anything is written: 402 past the plan's records, 404 no such collection,
 * 409 another replace in progress (or this one cancelled meanwhile); an XML file needs record_tag.
 */
export const PORTAL_COLLECTION_REPLACE = endpoint({
  service: 'ingestion',
  method: 'POST',
  path: '/portal/collections/:name/replace',
  summary: "Uploads a file as a staging generation of one of the signed-in tenant's collections, to be swapped in for its records",
  exposed: withPortalToken,
  consumes: MULTIPART,
  params: z.object({ name: collectionName }),
  query: replaceUploadQuery,
  body: fileForm('The file, in the part named `file`: CSV, JSON, NDJSON, XML or PDF'),
  headers: preferHeader,
  answer: replaceUploadAnswer,
  otherAnswers: acceptedAnswer(replaceAccepted),
  refusals: [402, 404, 409, 413, 415],
});

/** Every public endpoint the ingestion service answers. */
export const INGESTION_API: readonly Endpoint[] = [
  UPLOAD_BATCH,
  UPLOAD_FILE,
  UPLOAD_PDF,
  UPLOAD_STREAM,
  WEBHOOK_UPLOAD,
  PORTAL_UPLOAD,
  PORTAL_COLLECTION_REPLACE,
  INGEST_BATCH,
  INGEST_FILE,
  INGEST_PDF,
  INGEST_STREAM,
  WEBHOOK_INGEST,
  UPLOAD_LIST,
  UPLOAD_STATUS,
  UPLOAD_ERRORS,
  PORTAL_UPLOAD_LIST,
  PORTAL_UPLOAD_STATUS,
  PORTAL_UPLOAD_ERRORS,
  INGESTION_STATUS,
  INGESTION_ERRORS,
  PIPELINE_STATUS,
  PIPELINE_TRIGGER,
];
