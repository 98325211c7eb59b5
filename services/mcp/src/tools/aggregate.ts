import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AGGREGATE_STATS_MAX } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { z } from 'zod';
import { table } from '../domain/format';
import type { Backend } from '../backend';
import { checkCollectionCase, collection, filters, guarded, toolInput, type Filters } from './common';

const field = z.string().trim().min(1, { error: 'field names must not be empty' }).max(200);

const input = toolInput({
  collection,
  filters,
  group_by: field
    .optional()
    .describe('A collection_data field (or "record_type") to count records by; the 50 largest groups are returned'),
  stats: z
    .array(field, { error: 'stats must be a list of field names, e.g. ["price"]' })
    .max(AGGREGATE_STATS_MAX, { error: `stats takes at most ${AGGREGATE_STATS_MAX} fields` })
    .optional()
    .describe(`Up to ${AGGREGATE_STATS_MAX} numeric collection_data fields to summarise (count, min, max, average), e.g. ["price", "weight"]`),
});

type Args = { collection: string; filters?: Filters; group_by?: string; stats?: string[] };

function num(n: number | null): string {
  if (n === null) return '';
  return Number.isInteger(n) ? String(n) : n.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
}

export function registerAggregate(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_aggregate',
    {
      title: 'Count, group and summarise records',
      description:
        'Counts the searchable records of a collection that match optional filters, optionally grouped by one field ' +
        '(top 50 values with counts) and with count/min/max/average of up to 5 numeric fields. Use it for questions like ' +
        '"how many", "which materials exist" or "price range". Same filter syntax as trove_search.',
      inputSchema: input,
      annotations: { readOnlyHint: true },
    },
    guarded<Args>(logger, 'trove_aggregate', 'Narrow with filters, or ask for fewer stats.', async (args) => {
      const answer = await backend.aggregate({
        collection: args.collection,
        filters: args.filters ?? {},
        ...(args.group_by === undefined ? {} : { group_by: args.group_by }),
        stats: args.stats ?? [],
      });
      if (answer.total === 0) await checkCollectionCase(backend, args.collection);
      const lines = [`Total matching records in "${args.collection}": ${answer.total}`];
      if (args.group_by !== undefined) {
        lines.push('', `Grouped by ${args.group_by} (largest first, at most 50):`);
        lines.push(answer.groups.length === 0 ? '(no record has this field)' : table([args.group_by, 'Count'], answer.groups.map((g) => [g.value, g.count])));
      }
      const stats = Object.entries(answer.stats ?? {});
      if (stats.length > 0) {
        lines.push('', 'Statistics (numeric values only):');
        lines.push(
          table(
            ['Field', 'Count', 'Min', 'Max', 'Average'],
            stats.map(([name, s]) => (s ? [name, s.count, num(s.min), num(s.max), num(s.avg)] : [name, 0, '', '', ''])),
          ),
        );
      }
      return lines.join('\n');
    }),
  );
}
