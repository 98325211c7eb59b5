import { z } from 'zod';

/**
 * The two vocabularies (docs/behaviour/older-vocabulary.md): the current one (record, collection) and the older one
 * (entity, vertical). This table is the only place the older names are written; every service's older routes, the
 * older fields of search results and the older names in 422s are derived from it.
 */
export const OLDER_NAMES = {
  collection: 'vertical',
  record_type: 'entity_type',
  collection_data: 'vertical_data',
  indexing_status: 'embedding_status',
  record_ids: 'entity_ids',
  record_id: 'entity_id',
  upload_id: 'ingestion_id',
} as const;

export type VocabularyName = 'current' | 'older';

/** How a collection names itself in search results: fixed when it is first created (docs/behaviour/older-vocabulary.md). */
export const COLLECTION_VOCABULARIES = ['current', 'older'] as const satisfies readonly VocabularyName[];
export const collectionVocabulary = z.enum(COLLECTION_VOCABULARIES);

const TO_OLDER: ReadonlyMap<string, string> = new Map(Object.entries(OLDER_NAMES));
const TO_CURRENT: ReadonlyMap<string, string> = new Map(Object.entries(OLDER_NAMES).map(([current, older]) => [older, current]));

/** A field's name in the older vocabulary (the same name where both vocabularies share it). */
export function olderName(name: string): string {
  return TO_OLDER.get(name) ?? name;
}

/** A field's name in the current vocabulary (the same name where both vocabularies share it). */
export function currentName(name: string): string {
  return TO_CURRENT.get(name) ?? name;
}

/** The names only the other vocabulary uses: a route of `vocabulary` refuses them (422 extra_forbidden). */
export function foreignNames(vocabulary: VocabularyName): ReadonlySet<string> {
  return vocabulary === 'older' ? CURRENT_NAMES : OLDER_ONLY_NAMES;
}

const CURRENT_NAMES: ReadonlySet<string> = new Set(TO_OLDER.keys());
const OLDER_ONLY_NAMES: ReadonlySet<string> = new Set(TO_CURRENT.keys());

/** An indexing status as the older vocabulary says it: `completed` for indexed (docs/behaviour/older-vocabulary.md). */
export function olderIndexingStatus(status: string): string {
  return status === 'indexed' ? 'completed' : status;
}

/**
 * An object's fields under their older names, its indexing status said the older way; nested values untouched (the
 * keys of collection_data are the tenant's own). Field order is kept.
 */
export function withOlderNames(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[olderName(key)] = key === 'indexing_status' && typeof v === 'string' ? olderIndexingStatus(v) : v;
  return out;
}

/**
 * An answer readable in both vocabularies: its fields under their current names and, for those the older vocabulary
 * names otherwise, under the older names as well (the same values, not copies).
 */
export function withBothNames<T extends object>(value: T): T & Record<string, unknown> {
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, v] of Object.entries(value)) {
    const older = TO_OLDER.get(key);
    if (older !== undefined) out[older] = key === 'indexing_status' && typeof v === 'string' ? olderIndexingStatus(v) : v;
  }
  return out as T & Record<string, unknown>;
}

/** Fields whose keys are the tenant's own (data fields, filter fields): a 422's loc is never renamed past them. */
const FREE_FORM = new Set(['collection_data', 'vertical_data', 'filters']);

/**
 * A 422 loc (`['body', 'update', 'collection_data', 'size']`) in the older vocabulary: the request's own fields
 * renamed, up to and including a free-form field, whose keys are the tenant's and stay as sent.
 */
export function olderLoc(loc: string[]): string[] {
  const out = [...loc];
  for (let i = 1; i < out.length; i++) {
    out[i] = olderName(out[i]!);
    if (FREE_FORM.has(out[i]!)) break;
  }
  return out;
}

/**
 * The older vocabulary's form of a request schema: the same fields and rules under their older names (nested objects
 * too), parsing into the current names, so the current handler takes what it answers as it is. A strict schema stays
 * strict, so a current name sent to an older route is an unknown field (422 extra_forbidden), and every issue's path
 * names the field as the client sent it.
 */
export function inOlderNames<S extends z.ZodObject>(schema: S): z.ZodType<z.output<S>, unknown> {
  // Built once per schema: routes ask for it on every request.
  let older = olderSchemas.get(schema);
  if (!older) olderSchemas.set(schema, (older = renamed(schema)));
  return older as unknown as z.ZodType<z.output<S>, unknown>;
}

const olderSchemas = new WeakMap<z.ZodObject, z.ZodType>();

function renamed(schema: z.ZodObject): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) shape[olderName(key)] = renamedField(field as z.ZodType);
  const object = schema.def.catchall ? z.object(shape).catchall(schema.def.catchall) : z.object(shape);
  return object.transform((value) => {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[currentName(key)] = v;
    return out;
  });
}

function renamedField(field: z.ZodType): z.ZodType {
  if (field instanceof z.ZodObject) return renamed(field);
  if (field instanceof z.ZodOptional && field.unwrap() instanceof z.ZodObject) return renamed(field.unwrap() as z.ZodObject).optional();
  return field;
}
