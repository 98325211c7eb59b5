import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TROVE_LOOKUP_TOOL } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { describeCuts, fitted } from '../domain/answer';
import { compact, yaml } from '../domain/format';
import { ToolError } from '../domain/tool-error';
import type { Backend, FullRecord } from '../backend';
import { registerTool } from './common';

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
  registerTool(server, logger, TROVE_LOOKUP_TOOL, 'The record is too large to show whole; find records by these fields with trove_search filters instead.', async (args) => {
    return recordText(await recordOrFail(backend, args.record_id), args.format === 'json' ? 'json' : 'yaml');
  });
}
