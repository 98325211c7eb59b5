import { z } from 'zod';
import {
  COLLECTION_DATA_MAX_DEPTH,
  COLLECTION_DATA_MAX_FIELDS,
  FIELD_NAME_MAX_LENGTH,
  collectionName,
  fieldLimitProblem,
  isStorableText as storable,
  recordName,
  recordType,
  visibility,
} from '@trove/contracts';
import { fields } from '@trove/platform';

/** Ids a bulk call may name at once (the specification's bulk-visibility limit, applied to every bulk call). */
export const BULK_LIMIT = 1000;

/** PostgreSQL cannot store NUL characters or unpaired surrogates; they are refused as input, never a 500. */
const STORABLE = { error: 'String should not contain NUL characters or unpaired surrogates' };

/** A string PostgreSQL can store, of at most `max` characters. */
export const text = (max: number) => z.string().max(max).refine(storable, STORABLE);

/** A name or type of only spaces would read as nothing in listings and in the generated description. */
const notBlank = (s: string) => s.trim().length > 0;
const NOT_BLANK = { error: 'String should not be blank' };

export const name = recordName.refine(notBlank, NOT_BLANK).refine(storable, STORABLE);
export const type = recordType.refine(notBlank, NOT_BLANK).refine(storable, STORABLE);
export const collection = collectionName;
export const description = text(50_000);
export const sourceName = text(200);
export const sourceId = text(500);
export const sourceUrl = text(2048);

/** Whether a JSON value is storable and nested at most `COLLECTION_DATA_MAX_DEPTH` deep; allocates nothing. */
function jsonStorable(value: unknown, depth: number): boolean {
  if (depth > COLLECTION_DATA_MAX_DEPTH) return false;
  if (typeof value === 'string') return storable(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const v of value) if (!jsonStorable(v, depth + 1)) return false;
    return true;
  }
  for (const k in value) if (!storable(k) || !jsonStorable((value as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** Walks a JSON value and reports the first part PostgreSQL could not store, with its path. */
function checkJson(value: unknown, path: (string | number)[], depth: number, ctx: z.RefinementCtx): boolean {
  if (depth > COLLECTION_DATA_MAX_DEPTH) {
    ctx.addIssue({ code: 'custom', path, input: value, message: `Value should be nested at most ${COLLECTION_DATA_MAX_DEPTH} levels deep` });
    return false;
  }
  if (typeof value === 'string') {
    if (storable(value)) return true;
    ctx.addIssue({ code: 'custom', path, input: value, message: STORABLE.error });
    return false;
  }
  if (Array.isArray(value)) return value.every((v, i) => checkJson(v, [...path, i], depth + 1, ctx));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([k, v]) => {
      if (!storable(k)) {
        ctx.addIssue({ code: 'custom', path: [...path, k], input: k, message: 'Key should not contain NUL characters or unpaired surrogates' });
        return false;
      }
      return checkJson(v, [...path, k], depth + 1, ctx);
    });
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Free-form structured data: a JSON object, passed through as parsed (no copy: an upload carries a thousand of them).
 * The allocation-free check runs first; only a value that fails it is walked again to name the offending part. Then the
 * field limits: at most COLLECTION_DATA_MAX_FIELDS fields over every nested level, names of at most
 * FIELD_NAME_MAX_LENGTH characters.
 */
export const collectionData = z.custom<Record<string, unknown>>(() => true).superRefine((data, ctx) => {
  if (!isObject(data)) {
    ctx.addIssue({ code: 'invalid_type', expected: 'object', input: data, message: 'Input should be a valid dictionary' });
    return;
  }
  if (!jsonStorable(data, 1)) {
    checkJson(data, [], 1, ctx);
    return;
  }
  const problem = fieldLimitProblem(data);
  if (problem?.reason === 'name_too_long') {
    ctx.addIssue({ code: 'custom', path: problem.path, input: problem.path.at(-1), message: `Key should be at most ${FIELD_NAME_MAX_LENGTH} characters` });
  } else if (problem) {
    ctx.addIssue({ code: 'custom', path: [], input: null, message: `Value should have at most ${COLLECTION_DATA_MAX_FIELDS} fields, counted over every nested level` });
  }
});

export const recordId = fields.uuid;
export const idParams = z.object({ id: recordId });

export const recordIds = z.array(recordId).min(1).max(BULK_LIMIT);

/**
 * What PATCH /records/{id} and PATCH /records/bulk may change. `collection` and `source_id` identify a record's place
 * and origin and are not changeable; unknown fields are refused rather than ignored, so a typo never passes silently.
 */
export const recordUpdate = z.strictObject({
  name: name.optional(),
  description: description.nullable().optional(),
  record_type: type.optional(),
  collection_data: collectionData.optional(),
  visibility: visibility.optional(),
  status: z.enum(['active', 'draft']).optional(),
  source_name: sourceName.nullable().optional(),
  source_url: sourceUrl.nullable().optional(),
});
