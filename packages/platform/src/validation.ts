import { parseFilters, withRecordTypeFilters, type Filter, type FilterValue } from '@trove/contracts';
import { z } from 'zod';
import { ERRORS, type ValidationIssue } from './errors';

type Source = 'body' | 'query' | 'path' | 'header';

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as string];
  }
  return cur;
}

/** The client left this out: the body itself is missing, or its object parent lacks the key. */
function isAbsent(root: unknown, parent: unknown, path: PropertyKey[]): boolean {
  if (path.length === 0) return root === undefined;
  if (parent === null || typeof parent !== 'object') return false;
  return (parent as Record<PropertyKey, unknown>)[path[path.length - 1] as string] === undefined;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'string',
  number: 'number',
  int: 'int',
  boolean: 'bool',
  object: 'dict',
  array: 'list',
  bigint: 'int',
  date: 'datetime',
};

const ARTICLE: Record<string, string> = {
  string: 'a valid string',
  number: 'a valid number',
  int: 'a valid integer',
  boolean: 'a valid boolean',
  object: 'a valid dictionary',
  array: 'a valid list',
};

/** Codes that a field the client left out can raise; whichever the schema raised, the answer is `missing`. */
const ABSENCE_CODES = new Set(['invalid_type', 'invalid_value', 'invalid_format', 'invalid_union', 'too_small', 'too_big']);

function mapIssue(issue: z.core.$ZodIssue, source: Source, root: unknown): ValidationIssue[] {
  const path = issue.path.map(String);
  const loc = [source, ...path];
  const parent = valueAt(root, issue.path.slice(0, -1));
  if (ABSENCE_CODES.has(issue.code) && isAbsent(root, parent, issue.path)) {
    return [{ loc, msg: 'Field required', type: 'missing', input: parent ?? null, ctx: {} }];
  }
  // What the client sent, not what a coercion made of it: a query's '0' stays '0', a bad number is not NaN.
  const sent = valueAt(root, issue.path);
  const input = sent !== undefined ? sent : 'input' in issue ? issue.input : undefined;
  const i = issue as z.core.$ZodIssue & Record<string, unknown>;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = String(i.expected);
      return [
        {
          loc,
          msg: `Input should be ${ARTICLE[expected] ?? `of type ${expected}`}`,
          type: `${TYPE_NAMES[expected] ?? expected}_type`,
          input,
          ctx: { expected },
        },
      ];
    }
    case 'too_small': {
      const min = Number(i.minimum);
      if (i.origin === 'string')
        return [{ loc, msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`, type: 'string_too_short', input, ctx: { min_length: min } }];
      if (i.origin === 'array' || i.origin === 'set')
        return [{ loc, msg: `List should have at least ${min} item${min === 1 ? '' : 's'}`, type: 'too_short', input, ctx: { min_length: min } }];
      return i.inclusive === false
        ? [{ loc, msg: `Input should be greater than ${min}`, type: 'greater_than', input, ctx: { gt: min } }]
        : [{ loc, msg: `Input should be greater than or equal to ${min}`, type: 'greater_than_equal', input, ctx: { ge: min } }];
    }
    case 'too_big': {
      const max = Number(i.maximum);
      if (i.origin === 'string')
        return [{ loc, msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`, type: 'string_too_long', input, ctx: { max_length: max } }];
      if (i.origin === 'array' || i.origin === 'set')
        return [{ loc, msg: `List should have at most ${max} item${max === 1 ? '' : 's'}`, type: 'too_long', input, ctx: { max_length: max } }];
      return i.inclusive === false
        ? [{ loc, msg: `Input should be less than ${max}`, type: 'less_than', input, ctx: { lt: max } }]
        : [{ loc, msg: `Input should be less than or equal to ${max}`, type: 'less_than_equal', input, ctx: { le: max } }];
    }
    case 'invalid_value': {
      const values = (i.values as unknown[]) ?? [];
      const expected = values.map((v) => `'${String(v)}'`).join(', ');
      return [{ loc, msg: `Input should be ${values.length > 1 ? `one of ${expected}` : expected}`, type: 'enum', input, ctx: { expected } }];
    }
    case 'unrecognized_keys': {
      const keys = (i.keys as string[]) ?? [];
      const parent = valueAt(root, issue.path);
      return keys.map((k) => ({
        loc: [...loc, k],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: valueAt(parent, [k]) ?? null,
        ctx: {},
      }));
    }
    case 'invalid_format': {
      const format = String(i.format);
      if (format === 'uuid' || format === 'guid')
        return [{ loc, msg: 'Input should be a valid UUID', type: 'uuid_parsing', input, ctx: {} }];
      if (format === 'datetime' || format === 'date')
        return [{ loc, msg: `Input should be a valid ${format}`, type: `${format}_parsing`, input, ctx: {} }];
      if (format === 'regex')
        return [{ loc, msg: issue.message, type: 'string_pattern_mismatch', input, ctx: { pattern: String(i.pattern ?? '') } }];
      return [{ loc, msg: issue.message, type: 'value_error', input, ctx: { format } }];
    }
    case 'not_multiple_of':
      return [{ loc, msg: issue.message, type: 'multiple_of', input, ctx: { multiple_of: i.divisor } }];
    case 'invalid_union':
      return [{ loc, msg: issue.message || 'Input does not match any allowed shape', type: 'union_tag_invalid', input, ctx: {} }];
    default:
      return [{ loc, msg: issue.message, type: 'value_error', input, ctx: {} }];
  }
}

/** Maps zod issues onto 422 detail entries `{loc, msg, type, input, ctx}` (docs/behaviour/errors-and-validation.md). */
export function toValidationIssues(error: z.ZodError, source: Source, root: unknown): ValidationIssue[] {
  return error.issues.flatMap((issue) => mapIssue(issue, source, root)).map((v) => ({ ...v, input: v.input === undefined ? null : v.input }));
}

/** Parses input with a schema, or throws the 422 of docs/behaviour/errors-and-validation.md. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, source: Source): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Parsed again for the issues' inputs: asking for them on every parse makes the valid ones (nearly all) about three
  // times slower.
  const reported = schema.safeParse(input, { reportInput: true });
  throw ERRORS.validation(toValidationIssues(reported.error ?? result.error, source, input));
}

/** Common field schemas shared by every service. */
export const fields = {
  /** Any 8-4-4-4-12 hex identifier; a failure reads as `uuid_parsing`. */
  uuid: z.guid(),
};

/**
 * The filters of a request's filter object (`@trove/contracts` parseFilters), or a 422 naming each filter that cannot
 * apply at `[source, 'filters', key]`. Search also reads `entity_type` as the record type (withRecordTypeFilters).
 */
export function requestFilters(
  raw: Record<string, FilterValue>,
  source: Source,
  /** recordType: RECORD_TYPE_FILTER filters on the record's type; at: where the filter object sits in the input. */
  opts: { recordType?: boolean; at?: string[] } = {},
): Filter[] {
  const parsed = parseFilters(raw);
  const typed = opts.recordType ? withRecordTypeFilters(parsed.filters) : { filters: parsed.filters, issues: [] };
  const issues = [...parsed.issues, ...typed.issues];
  if (issues.length > 0) {
    throw ERRORS.validation(issues.map((i) => ({ loc: [source, ...(opts.at ?? []), 'filters', i.key], msg: i.msg, type: i.type, input: i.input ?? null, ctx: {} })));
  }
  return typed.filters;
}
