import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TROVE_COLLECTIONS_TOOL } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { table, truncate } from '../domain/format';
import type { Backend } from '../backend';
import { eitherName, registerTool } from './common';

/** Example record names shown per collection: its newest active records. */
const EXAMPLES = 2;

export function registerCollections(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_COLLECTIONS_TOOL, 'Narrow with query or category, or a smaller limit.', async (args) => {
    const { collections } = await backend.collections();
    const query = eitherName<string>(args, 'query', 'q')?.toLowerCase();
    const category = args.category?.toLowerCase();
    const shown = collections
      .filter((c) => !query || c.name.toLowerCase().includes(query))
      .filter((c) => !category || c.record_types.some((t) => t.toLowerCase().includes(category)))
      .slice(0, args.limit);
    const rows: unknown[][] = [];
    for (const c of shown) {
      const examples = await backend.list({ collection: c.name, limit: EXAMPLES });
      rows.push([
        c.name,
        c.record_types.map((t) => `${t} (${c.record_type_counts[t]})`).join(', '),
        c.total_records,
        c.record_types[0] ?? '',
        `e.g. ${examples.items.map((i) => truncate(i.name, 40)).join('; ')}`,
      ]);
    }
    const lines: string[] = [];
    if (rows.length === 0) {
      lines.push(collections.length === 0 ? 'This account has no records yet.' : 'No collection matches; call trove_collections without query or category to see all.');
    } else {
      lines.push(`${rows.length} collection${rows.length === 1 ? '' : 's'}:`, '');
      lines.push(table(['Collection', 'Record types (count)', 'Records', 'Category', 'Description'], rows));
    }
    return lines.join('\n');
  });
}
