import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@trove/platform';
import { MAX_FILTERS, type Filter, type FilterValue, type McpTool } from '@trove/contracts';
import type { z } from 'zod';
import { capAnswer } from '../domain/answer';
import { parseDataFilters } from '../domain/data-filters';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';

type Filters = Record<string, FilterValue>;

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
function guarded<A>(logger: Logger, name: string, narrow: string, body: (args: A) => Promise<string>): (args: A) => Promise<CallToolResult> {
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

/**
 * Registers a tool from its declaration in @trove/contracts (name, title, description, input schema, annotations: what
 * the API reference lists too), its body guarded.
 */
export function registerTool<I extends z.ZodObject>(
  server: McpServer,
  logger: Logger,
  tool: McpTool<I>,
  narrow: string,
  body: (args: z.output<I>) => Promise<string>,
): void {
  const { name, ...config } = tool;
  // The SDK's callback type depends on the schema's, which TypeScript leaves unresolved for a generic one: it is a
  // function of the arguments the schema parsed, z.output<I>.
  server.registerTool(name, config, guarded(logger, name, narrow, body) as ToolCallback<I>);
}

export const FILTER_GUIDE = [
  'Filter syntax (the `filters` object of trove_search, trove_aggregate and trove_list):',
  '- `{"field": "value"}` exact match (case-sensitive; "10" matches 10, "true" matches true; matches array elements)',
  '- `{"field": "a,b"}` or `{"field": ["a", "b"]}` or `{"field_in": "a,b"}` any of the values',
  '- `{"field_min": 5}` >= 5, `{"field_max": 5}` <= 5, `{"field_gt": 5}` > 5, `{"field_lt": 5}` < 5 (numbers; ISO dates compare as text)',
  `- several keys combine with AND; at most ${MAX_FILTERS} filters; filters apply to top-level fields of collection_data`,
].join('\n');
