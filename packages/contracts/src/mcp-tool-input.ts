import { z } from 'zod';
import { closestName } from './closest-name';
import { COLLECTION_NAME_MAX, COLLECTION_NAME_PATTERN, RECORD_TYPE_MAX } from './records';
import { MAX_FILTERS, filterKey, filterValue } from './search';

/*
 * The parts MCP tools' input schemas are built from. The messages are a model's to read: each says what to send
 * instead, since a tool error is all the calling model learns of its mistake.
 */

/**
 * A tool's arguments as a closed object. The MCP SDK would otherwise build an open one from the shape and drop an
 * argument it does not know before the tool sees it, so a misspelt `fliters` would silently search unfiltered. Closed,
 * an unknown argument is a tool error naming it, the closest valid name and every valid one, and the advertised JSON
 * schema says `additionalProperties: false`.
 */
export function toolInput<S extends z.ZodRawShape>(shape: S) {
  const valid = Object.keys(shape);
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownArguments(issue.keys, valid) : undefined) });
}

function unknownArguments(unknown: readonly string[], valid: readonly string[]): string {
  const named = unknown.map((name) => {
    const closest = closestName(name, valid);
    return `Unknown argument "${name}"${closest === undefined ? '' : ` (did you mean "${closest}"?)`}.`;
  });
  return `${named.join(' ')} Valid arguments: ${valid.join(', ')}.`;
}

/**
 * The description of a second name for an argument, so that a client reading the schema knows the two are one (the
 * tool takes either; docs/behaviour/mcp.md).
 */
export function sameAs(specName: string, usedBy: string): string {
  return `Same as \`${specName}\` (${usedBy}); give one of the two.`;
}

export const collection = z
  .string({ error: 'collection is required: a collection name as trove_collections lists it' })
  .regex(COLLECTION_NAME_PATTERN, {
    error: `collection must be 1-${COLLECTION_NAME_MAX} letters, digits, "_", "-" or "." (case-sensitive), as trove_collections lists it`,
  })
  .describe('Collection name, exactly as trove_collections lists it (case-sensitive)');

export const recordType = z
  .string({ error: 'record_type must be a string' })
  .trim()
  .min(1, { error: 'record_type must not be empty' })
  .max(RECORD_TYPE_MAX, { error: `record_type must be at most ${RECORD_TYPE_MAX} characters` })
  .describe('Record type within the collection, as trove_collections lists it (e.g. "product")');

export const recordId = z
  .uuid({ error: 'record_id must be a record id (a UUID such as 3f2b8c1e-…) as trove_search or trove_list return it' })
  .describe('The record id (UUID) from a trove_search or trove_list result');

/** Operator words a model may put inside an object value, and the key suffix that says the same. */
const OPERATOR_SUFFIXES: Record<string, string> = { min: '_min', gte: '_min', max: '_max', lte: '_max', gt: '_gt', lt: '_lt', in: '_in', eq: '', equals: '' };

/**
 * What to say when a filter's value is not a text, number, boolean or list of them (most often an object such as
 * `{"min": 5}`): the forms that are valid, and the object rewritten in them when its keys are operator words.
 */
export function filterValueProblem(key: string, value: unknown): string {
  const rewritten: string[] = [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [op, operand] of Object.entries(value)) {
      const suffix = OPERATOR_SUFFIXES[op.replace(/^\$/, '').toLowerCase()];
      if (suffix !== undefined) rewritten.push(`"${key}${suffix}": ${JSON.stringify(operand)}`);
    }
  }
  const got = Array.isArray(value) ? 'a list holding something else' : value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return (
    `filter "${key}": a filter value must be text, a number, true/false or a list of them, not ${got}.` +
    (rewritten.length > 0 ? ` Write it as ${rewritten.join(', ')}.` : '') +
    ` Valid forms: "${key}": "steel" (a plain value: exact match), "${key}": "a,b" or ["a", "b"] (a comma list: any of), ` +
    `"${key}_in": "a,b" (any of), "${key}_min": 5 (>=), "${key}_max": 5 (<=), "${key}_gt": 5 (>), "${key}_lt": 5 (<).`
  );
}

/** The shared filter value, with an error that shows a model the valid forms when it sends an object such as {"min": 5}. */
const modelFilterValue = z.union(filterValue.options, { error: (issue) => filterValueProblem(String(issue.path?.at(-1) ?? 'field'), issue.input) });

/** Filters on collection_data in search's filter syntax (parseFilters), as trove_search, trove_aggregate and trove_list take them. */
export const filters = z
  .record(filterKey, modelFilterValue, {
    error: 'filters must be an object of field names to values, e.g. {"material": "steel", "price_max": 10}',
  })
  .refine((f) => Object.keys(f).length <= MAX_FILTERS, { error: `filters: at most ${MAX_FILTERS} filters are allowed` })
  .optional()
  .describe(
    'Filters on collection_data fields, combined with AND. Key = field name (trove_schema lists them) plus an optional ' +
      'operator suffix: none = exact match ("steel" also matches inside arrays), comma-separated string or array = any of, ' +
      '`_in` = any of, `_min` >=, `_max` <=, `_gt` >, `_lt` <. Example: {"material": "steel,brass", "price_max": 10, "in_stock": true}',
  );

/** Results or records per call, from 1 to `max`, with errors naming the range. */
export function pageLimit(max: number, fallback: number, described: string) {
  return z
    .int({ error: `limit must be an integer from 1 to ${max}` })
    .min(1, { error: 'limit must be at least 1' })
    .max(max, { error: `limit must be at most ${max}` })
    .default(fallback)
    .describe(`${described}, 1-${max} (default ${fallback})`);
}

/** A tool's answer format: `markdown` (the default), a compact text for the model to read, or `json`. */
export function answerFormat(markdown: string, json: string) {
  return z
    .enum(['markdown', 'json'], { error: 'format must be "markdown" or "json"' })
    .default('markdown')
    .describe(`markdown (default): ${markdown}; json: ${json}`);
}
