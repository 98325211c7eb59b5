import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { z } from 'zod';
import { table, truncate } from '../domain/format';
import type { Backend } from '../backend';
import { eitherName, guarded, sameAs, toolInput } from './common';

/** Example record names shown per collection: its newest active records. */
const EXAMPLES = 2;

type Args = { query?: string; q?: string; category?: string; limit: number };

/** The name text under either of its names, each named in its own errors. */
const nameText = (name: string) => z.string({ error: `${name} must be a string` }).trim().max(200).optional();

export function registerCollections(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_collections',
    {
      title: 'List collections',
      description:
        'Lists this account\'s record collections with their record types, number of active records, category (the ' +
        'main record type) and example record names. Start here to learn which collection to pass to the other tools.',
      inputSchema: toolInput({
        query: nameText('query').describe('Only collections whose name contains this text (any case)'),
        q: nameText('q').describe(sameAs('query', 'trove_list calls its search text `q`')),
        category: z
          .string({ error: 'category must be a string' })
          .trim()
          .max(200)
          .optional()
          .describe('Only collections holding a record type that contains this text (any case), e.g. "product"'),
        limit: z.int({ error: 'limit must be an integer from 1 to 100' }).min(1, { error: 'limit must be at least 1' }).max(100, { error: 'limit must be at most 100' }).default(20).describe('Collections to return, 1-100 (default 20)'),
      }),
      annotations: { readOnlyHint: true },
    },
    guarded<Args>(logger, 'trove_collections', 'Narrow with query or category, or a smaller limit.', async (args) => {
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
    }),
  );
}
