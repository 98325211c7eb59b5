import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { z } from 'zod';
import { table, truncate } from '../domain/format';
import type { Backend } from '../upstreams';
import { guarded } from './common';

/**
 * Records has no collection listing yet, so collections are discovered from the newest active records (this many at
 * most) and each one's counts then come exactly from search's aggregation.
 */
export const COLLECTION_SCAN = 2_000;

interface Found {
  name: string;
  examples: string[];
}

async function discover(backend: Backend): Promise<{ found: Map<string, Found>; complete: boolean }> {
  const found = new Map<string, Found>();
  let cursor: string | undefined;
  for (let scanned = 0; scanned < COLLECTION_SCAN; ) {
    const page = await backend.list({ cursor, limit: 100 });
    scanned += page.items.length;
    for (const item of page.items) {
      let f = found.get(item.collection);
      if (!f) found.set(item.collection, (f = { name: item.collection, examples: [] }));
      if (f.examples.length < 2) f.examples.push(truncate(item.name, 40));
    }
    if (!page.has_more || !page.cursor) return { found, complete: true };
    cursor = page.cursor;
  }
  return { found, complete: false };
}

type Args = { query?: string; category?: string; limit: number };

export function registerCollections(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_collections',
    {
      title: 'List collections',
      description:
        'Lists this account\'s record collections with their record types, number of searchable records, category (the ' +
        'main record type) and example record names. Start here to learn which collection to pass to the other tools.',
      inputSchema: {
        query: z.string({ error: 'query must be a string' }).trim().max(200).optional().describe('Only collections whose name contains this text (any case)'),
        category: z
          .string({ error: 'category must be a string' })
          .trim()
          .max(200)
          .optional()
          .describe('Only collections holding a record type that contains this text (any case), e.g. "product"'),
        limit: z.int({ error: 'limit must be an integer from 1 to 100' }).min(1, { error: 'limit must be at least 1' }).max(100, { error: 'limit must be at most 100' }).default(20).describe('Collections to return, 1-100 (default 20)'),
      },
      annotations: { readOnlyHint: true },
    },
    guarded<Args>(logger, 'trove_collections', 'Narrow with query or category, or a smaller limit.', async (args) => {
      const { found, complete } = await discover(backend);
      const query = args.query?.toLowerCase();
      const names = [...found.keys()].filter((n) => !query || n.toLowerCase().includes(query)).sort();
      const category = args.category?.toLowerCase();
      const rows: unknown[][] = [];
      for (const name of names) {
        if (rows.length >= args.limit) break;
        const counts = await backend.aggregate({ collection: name, group_by: 'record_type', filters: {}, stats: [] });
        const types = counts.groups.map((g) => String(g.value));
        if (category && !types.some((t) => t.toLowerCase().includes(category))) continue;
        rows.push([
          name,
          counts.groups.map((g) => `${String(g.value)} (${g.count})`).join(', '),
          counts.total,
          types[0] ?? '',
          `e.g. ${found.get(name)!.examples.join('; ')}`,
        ]);
      }
      const lines: string[] = [];
      if (rows.length === 0) {
        lines.push(found.size === 0 ? 'This account has no records yet.' : 'No collection matches; call trove_collections without query or category to see all.');
      } else {
        lines.push(`${rows.length} collection${rows.length === 1 ? '' : 's'}:`, '');
        lines.push(table(['Collection', 'Record types (count)', 'Records', 'Category', 'Description'], rows));
      }
      if (!complete) lines.push('', `(Collections found among the ${COLLECTION_SCAN} most recently created records.)`);
      return lines.join('\n');
    }),
  );
}
