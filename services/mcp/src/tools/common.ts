import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@trove/platform';
import { COLLECTION_NAME_MAX, COLLECTION_NAME_PATTERN, MAX_FILTERS, filterKey, filterValue, type Filter, type FilterValue } from '@trove/contracts';
import { z } from 'zod';
import { capAnswer } from '../domain/answer';
import { closestName } from '../domain/closest';
import { filterValueProblem, parseDataFilters } from '../domain/data-filters';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';

export const collection = z
  .string({ error: 'collection is required: a collection name as trove_collections lists it' })
  .regex(COLLECTION_NAME_PATTERN, {
    error: `collection must be 1-${COLLECTION_NAME_MAX} letters, digits, "_", "-" or "." (case-sensitive), as trove_collections lists it`,
  })
  .describe('Collection name, exactly as trove_collections lists it (case-sensitive)');

/** The shared filter value, with an error that shows a model the valid forms when it sends an object such as {"min": 5}. */
const modelFilterValue = z.union(filterValue.options, { error: (issue) => filterValueProblem(String(issue.path?.at(-1) ?? 'field'), issue.input) });

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

export type Filters = Record<string, FilterValue>;

/**
 * A tool's arguments as a closed object. The SDK would otherwise build an open one from the shape and drop an argument
 * it does not know before the tool sees it, so a misspelt `fliters` would silently search unfiltered. Closed, an
 * unknown argument is a tool error naming it, the closest valid name and every valid one, and the advertised JSON
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
 * One value given under either of two names for the same thing (the tool's own name and the one another tool uses for
 * it; docs/behaviour/mcp.md); both with different values is a tool error.
 */
export function eitherName<T>(args: Record<string, unknown>, specName: string, otherName: string): T | undefined {
  const spec = args[specName] as T | undefined;
  const other = args[otherName] as T | undefined;
  if (spec !== undefined && other !== undefined && spec !== other) {
    throw new ToolError(`\`${specName}\` and \`${otherName}\` are the same argument; give one of them (or the same value in both).`);
  }
  return spec ?? other;
}

/** The description of a second name for an argument, so that a client reading the schema knows the two are one. */
export function sameAs(specName: string, usedBy: string): string {
  return `Same as \`${specName}\` (${usedBy}); give one of the two.`;
}

/**
 * Called only after a collection answered nothing, so a found collection costs no extra call: when the tenant has no
 * collection of this exact name but one that differs only in case, the tool error names it.
 */
export async function checkCollectionCase(backend: Backend, name: string): Promise<void> {
  const { collections } = await backend.collections();
  if (collections.some((c) => c.name === name)) return;
  const twin = collections.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (twin) throw new ToolError(`There is no collection "${name}"; collection names are case-sensitive: did you mean "${twin.name}"?`);
}

/** Data filters read for local matching; a filter that cannot apply is a tool error saying how to fix it. */
export function dataFilters(raw: Filters | undefined): Filter[] {
  const { filters: parsed, problems } = parseDataFilters(raw ?? {});
  if (problems.length > 0) throw new ToolError(problems.join('; '));
  return parsed;
}

export function text(body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }] };
}

/**
 * Runs a tool body; a ToolError becomes an `isError` result with its message, anything unexpected is logged and
 * reported without internals, so a tool never fails the MCP request. Either answer is cut to ANSWER_LIMIT, with a
 * note ending in `narrow`: how to ask this tool for less.
 */
export function guarded<A>(logger: Logger, name: string, narrow: string, body: (args: A) => Promise<string>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return text(capAnswer(await body(args), narrow));
    } catch (err) {
      if (err instanceof ToolError) return { content: [{ type: 'text', text: capAnswer(err.message, narrow) }], isError: true };
      logger.error({ err, tool: name }, 'tool failed');
      return { content: [{ type: 'text', text: `${name} failed unexpectedly; try again shortly.` }], isError: true };
    }
  };
}

export const FILTER_GUIDE = [
  'Filter syntax (the `filters` object of trove_search, trove_aggregate and trove_list):',
  '- `{"field": "value"}` exact match (case-sensitive; "10" matches 10, "true" matches true; matches array elements)',
  '- `{"field": "a,b"}` or `{"field": ["a", "b"]}` or `{"field_in": "a,b"}` any of the values',
  '- `{"field_min": 5}` >= 5, `{"field_max": 5}` <= 5, `{"field_gt": 5}` > 5, `{"field_lt": 5}` < 5 (numbers; ISO dates compare as text)',
  `- several keys combine with AND; at most ${MAX_FILTERS} filters; filters apply to top-level fields of collection_data`,
].join('\n');
