import { z } from 'zod';
import { COLLECTION_DATA_MAX_DEPTH, COLLECTION_DATA_MAX_FIELDS, FIELD_NAME_MAX_LENGTH, fieldLimitProblem, firstUnstorable, isStorableText } from './storable';

export const RECORD_STATUSES = ['active', 'archived', 'draft'] as const;
export const INDEXING_STATUSES = ['pending', 'processing', 'indexed', 'failed'] as const;
export const VISIBILITIES = ['private', 'public'] as const;
export const SOURCE_TYPES = ['api', 'file_upload', 'webhook', 'connector'] as const;
/**
 * Where an entity stands in being claimed by its owner: the older vocabulary's field, set by its
 * clients (docs/behaviour/older-vocabulary.md); Trove runs no claim workflow of its own.
 */
export const CLAIM_STATUSES = ['unclaimed', 'pending', 'claimed'] as const;

export const recordStatus = z.enum(RECORD_STATUSES);
export const indexingStatus = z.enum(INDEXING_STATUSES);
export const visibility = z.enum(VISIBILITIES);
export const sourceType = z.enum(SOURCE_TYPES);
export const claimStatus = z.enum(CLAIM_STATUSES);
export type ClaimStatus = z.infer<typeof claimStatus>;

/** The longest collection name. */
export const COLLECTION_NAME_MAX = 50;
/** A whole collection name: 1-50 letters, digits, `_`, `-`, `.` (docs/behaviour/records.md). */
export const COLLECTION_NAME_PATTERN = new RegExp(`^[A-Za-z0-9_.-]{1,${COLLECTION_NAME_MAX}}$`);

/** Collection names, each broken rule with its own message. */
export const collectionName = z
  .string()
  .min(1)
  .max(COLLECTION_NAME_MAX)
  .regex(/^[A-Za-z0-9_.-]+$/, { error: 'String should contain only letters, digits, _, - and .' });

/** The longest text of each record field, as every writer of records (the API, uploads, connectors) is held to. */
export const RECORD_NAME_MAX = 500;
export const RECORD_TYPE_MAX = 100;
export const DESCRIPTION_MAX = 50_000;
export const SOURCE_NAME_MAX = 200;
export const SOURCE_ID_MAX = 500;
export const SOURCE_URL_MAX = 2048;

/** PostgreSQL cannot store NUL characters or unpaired surrogates; they are refused as input, never a 500. */
const STORABLE = { error: 'String should not contain NUL characters or unpaired surrogates' };

/** A string PostgreSQL can store, of at most `max` characters. */
export const storableText = (max: number) => z.string().max(max).refine(isStorableText, STORABLE);

/** A name or type of only spaces would read as nothing in listings and in the generated description. */
const notBlank = (s: string) => s.trim().length > 0;
const NOT_BLANK = { error: 'String should not be blank' };

export const recordName = z.string().min(1).max(RECORD_NAME_MAX).refine(notBlank, NOT_BLANK).refine(isStorableText, STORABLE);
export const recordType = z.string().min(1).max(RECORD_TYPE_MAX).refine(notBlank, NOT_BLANK).refine(isStorableText, STORABLE);
export const recordDescription = storableText(DESCRIPTION_MAX);
export const sourceName = storableText(SOURCE_NAME_MAX);
export const sourceId = storableText(SOURCE_ID_MAX);
export const sourceUrl = storableText(SOURCE_URL_MAX);

const UNSTORABLE_MESSAGE = {
  too_deep: `Value should be nested at most ${COLLECTION_DATA_MAX_DEPTH} levels deep`,
  text: STORABLE.error,
  key: 'Key should not contain NUL characters or unpaired surrogates',
  not_finite: 'Input should be a finite number',
} as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Free-form structured data, as every writer of records is held to: a JSON object, passed through as parsed (no copy:
 * an upload carries a thousand of them), that PostgreSQL can store (firstUnstorable names the offending part), nested
 * at most COLLECTION_DATA_MAX_DEPTH deep, with at most COLLECTION_DATA_MAX_FIELDS fields over every nested level and
 * names of at most FIELD_NAME_MAX_LENGTH characters.
 */
export const collectionData = z.custom<Record<string, unknown>>(() => true).superRefine((data, ctx) => {
  if (!isObject(data)) {
    ctx.addIssue({ code: 'invalid_type', expected: 'object', input: data, message: 'Input should be a valid dictionary' });
    return;
  }
  const unstorable = firstUnstorable(data);
  if (unstorable) {
    ctx.addIssue({ code: 'custom', path: unstorable.path, input: unstorable.value, message: UNSTORABLE_MESSAGE[unstorable.reason] });
    return;
  }
  const problem = fieldLimitProblem(data);
  if (problem?.reason === 'name_too_long') {
    ctx.addIssue({ code: 'custom', path: problem.path, input: problem.path.at(-1), message: `Key should be at most ${FIELD_NAME_MAX_LENGTH} characters` });
  } else if (problem) {
    ctx.addIssue({ code: 'custom', path: [], input: null, message: `Value should have at most ${COLLECTION_DATA_MAX_FIELDS} fields, counted over every nested level` });
  }
});

/** A full record as services exchange it and as GET /records/{id} answers it. */
export const recordSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  description_llm: z.string(),
  collection: z.string(),
  record_type: z.string(),
  collection_data: z.record(z.string(), z.unknown()),
  indexing_status: indexingStatus,
  status: recordStatus,
  visibility,
  generation: z.number().int(),
  source_name: z.string().nullable(),
  source_id: z.string().nullable(),
  source_url: z.string().nullable(),
  source_type: sourceType,
  version: z.number().int(),
  /** Present once a client of the older vocabulary has set it; unclaimed until then. */
  claim_status: claimStatus.optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RecordDto = z.infer<typeof recordSchema>;

/** One collection as GET /collections lists it: its active generation's active records. */
export const collectionSummary = z.object({
  name: z.string(),
  /** The collection's record types, most records first (ties by name): the first is its main type. */
  record_types: z.array(z.string()),
  /** Active records of each record type. */
  record_type_counts: z.record(z.string(), z.number().int()),
  total_records: z.number().int(),
  indexed: z.number().int(),
  pending: z.number().int(),
  processing: z.number().int(),
  failed: z.number().int(),
});
export type CollectionSummary = z.infer<typeof collectionSummary>;

/** GET /collections's answer (COLLECTION_LIST): the tenant's collections by name. */
export const collectionsAnswer = z.object({ collections: z.array(collectionSummary) });
export type CollectionsAnswer = z.infer<typeof collectionsAnswer>;

