import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { z } from 'zod';
import { describeCuts, fitted } from '../domain/answer';
import { compact, yaml } from '../domain/format';
import { ToolError } from '../domain/tool-error';
import type { Backend, FullRecord } from '../backend';
import { guarded, toolInput } from './common';

export const recordId = z
  .uuid({ error: 'record_id must be a record id (a UUID such as 3f2b8c1e-…) as trove_search or trove_list return it' })
  .describe('The record id (UUID) from a trove_search or trove_list result');

/**
 * The full record as text, trimmed for a model's context: long strings, long arrays, objects with many keys and deep
 * nesting are cut with a marker, and the YAML ends with a comment saying what was left out. JSON stays parseable.
 */
export function recordText(record: FullRecord, format: 'yaml' | 'json'): string {
  const { tenant_id: _tenant, ...rest } = record;
  return fitted((budget) => {
    const { value, cuts } = compact(rest, budget);
    if (format === 'json') return JSON.stringify(value, null, 2);
    const cut = describeCuts(cuts);
    return cut === undefined ? yaml(value) : `${yaml(value)}\n# Cut to fit: ${cut}. Filter on these fields with trove_search or trove_list to find records by them.`;
  });
}

export async function recordOrFail(backend: Backend, id: string): Promise<FullRecord> {
  const record = await backend.record(id);
  if (!record) throw new ToolError(`No record with id ${id} exists for this account. Find record ids with trove_search or trove_list.`);
  return record;
}

export function registerLookup(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_lookup',
    {
      title: 'Read one record',
      description:
        'Returns one record in full by its id: name, collection, record_type, status, visibility, description and all ' +
        'collection_data fields, as YAML (or JSON with format "json"). Very long values are cut and end with "…".',
      inputSchema: toolInput({
        record_id: recordId,
        format: z.enum(['markdown', 'json'], { error: 'format must be "markdown" or "json"' }).default('markdown').describe('markdown (default): YAML text; json: a JSON object'),
      }),
      annotations: { readOnlyHint: true },
    },
    guarded<{ record_id: string; format: 'markdown' | 'json' }>(logger, 'trove_lookup', 'The record is too large to show whole; find records by these fields with trove_search filters instead.', async (args) => {
      return recordText(await recordOrFail(backend, args.record_id), args.format === 'json' ? 'json' : 'yaml');
    }),
  );
}
