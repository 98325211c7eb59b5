/**
 * What PostgreSQL can store: text, json and jsonb refuse NUL characters and unpaired UTF-16 surrogates (a string cut
 * in the middle of an emoji). Records refuses such input (422), ingestion finds it first to reject only the record
 * that carries it, and search cleans what reaches it; all by these rules.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
/** A plain scan for the characters UNSTORABLE looks at: most text has none, and then the costlier test is skipped. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** How deep collection_data may nest (the object itself is level 1). */
export const COLLECTION_DATA_MAX_DEPTH = 32;

export function isStorableText(text: string): boolean {
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

/** The text with each NUL character and unpaired surrogate replaced by what `replacement` gives for it. */
export function replaceUnstorable(text: string, replacement: (character: string) => string): string {
  return isStorableText(text) ? text : text.replace(UNSTORABLE_ALL, replacement);
}

/** Where a JSON value holds what PostgreSQL cannot store: the path of the offending part, and that part. */
export interface UnstorablePart {
  /** too_deep: nested beyond COLLECTION_DATA_MAX_DEPTH; text, key: a string or an object key isStorableText refuses. */
  reason: 'too_deep' | 'text' | 'key' | 'not_finite';
  /** From the value walked to the offending part; for `key`, it ends in the key. */
  path: (string | number)[];
  value: unknown;
}

/**
 * The first part of a JSON value that PostgreSQL could not store, or undefined: a string or key with a NUL character or
 * an unpaired surrogate, a number that is not finite (which JSON cannot carry), or a value nested more than `maxDepth`
 * levels deep (the value itself is level `depth`). Parts are visited in order, each key before its value; nothing is
 * allocated unless a part is found. Records refuses such input, ingestion rejects only the record that carries it,
 * and search cleans what reaches it.
 */
export function firstUnstorable(value: unknown, maxDepth = COLLECTION_DATA_MAX_DEPTH, depth = 1): UnstorablePart | undefined {
  if (depth > maxDepth) return { reason: 'too_deep', path: [], value };
  if (typeof value === 'string') return isStorableText(value) ? undefined : { reason: 'text', path: [], value };
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { reason: 'not_finite', path: [], value };
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const part = firstUnstorable(value[i], maxDepth, depth + 1);
      if (part) return prefixed(i, part);
    }
    return undefined;
  }
  for (const key in value) {
    if (!isStorableText(key)) return { reason: 'key', path: [key], value: key };
    const part = firstUnstorable((value as Record<string, unknown>)[key], maxDepth, depth + 1);
    if (part) return prefixed(key, part);
  }
  return undefined;
}

function prefixed(step: string | number, part: UnstorablePart): UnstorablePart {
  part.path.unshift(step);
  return part;
}

/**
 * How many fields collection_data may hold, counted over every nested level: Elasticsearch's default
 * `index.mapping.total_fields.limit`, so whatever records store a search index can map.
 */
export const COLLECTION_DATA_MAX_FIELDS = 1000;
/** The longest field name (object key) collection_data may hold, at any level. */
export const FIELD_NAME_MAX_LENGTH = 256;

/** Where collection_data breaks a field limit: the path of the offending key, or [] for too many fields. */
export type FieldLimitProblem = { reason: 'name_too_long'; path: (string | number)[] } | { reason: 'too_many_fields'; path: [] };

/**
 * The first way collection_data breaks the field limits, or undefined: a key longer than FIELD_NAME_MAX_LENGTH, or
 * more than COLLECTION_DATA_MAX_FIELDS fields. A field is a distinct key path over every nested level, arrays being
 * transparent (`items[].sku` is one field however many items hold it), which is how a search index maps fields.
 * Allocates nothing while the data has at most that many keys in all; levels beyond COLLECTION_DATA_MAX_DEPTH are not
 * looked at (the depth rule refuses them).
 */
export function fieldLimitProblem(data: Record<string, unknown>): FieldLimitProblem | undefined {
  const counter = { keys: 0 };
  const longKey = scanKeys(data, 1, counter);
  if (longKey) return { reason: 'name_too_long', path: longKey };
  if (counter.keys <= COLLECTION_DATA_MAX_FIELDS) return undefined;
  return countFieldPaths(data, '', 1, new Set()) > COLLECTION_DATA_MAX_FIELDS ? { reason: 'too_many_fields', path: [] } : undefined;
}

/** Counts every key (not only distinct paths) into `counter`; returns the path of the first key that is too long. */
function scanKeys(value: unknown, depth: number, counter: { keys: number }): (string | number)[] | undefined {
  if (depth > COLLECTION_DATA_MAX_DEPTH || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const path = scanKeys(value[i], depth + 1, counter);
      if (path) return [i, ...path];
    }
    return undefined;
  }
  for (const key in value) {
    if (key.length > FIELD_NAME_MAX_LENGTH) return [key];
    counter.keys++;
    const path = scanKeys((value as Record<string, unknown>)[key], depth + 1, counter);
    if (path) return [key, ...path];
  }
  return undefined;
}

/** Adds the distinct key paths under `prefix` to `seen`, stopping once there are more than the limit; their count. */
function countFieldPaths(value: unknown, prefix: string, depth: number, seen: Set<string>): number {
  if (depth > COLLECTION_DATA_MAX_DEPTH || value === null || typeof value !== 'object') return seen.size;
  if (Array.isArray(value)) {
    for (const item of value) if (countFieldPaths(item, prefix, depth + 1, seen) > COLLECTION_DATA_MAX_FIELDS) break;
    return seen.size;
  }
  for (const key in value) {
    // NUL cannot occur in a stored key, so it separates path segments without ambiguity.
    const path = `${prefix}\u0000${key}`;
    seen.add(path);
    if (countFieldPaths((value as Record<string, unknown>)[key], path, depth + 1, seen) > COLLECTION_DATA_MAX_FIELDS) break;
  }
  return seen.size;
}
