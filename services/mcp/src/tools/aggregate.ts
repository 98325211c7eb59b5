import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AGGREGATE_GROUP_LIMIT, TROVE_AGGREGATE_TOOL } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { table } from '../domain/format';
import type { Backend } from '../backend';
import { checkCollectionCase, registerTool } from './common';

function num(n: number | null): string {
  if (n === null) return '';
  return Number.isInteger(n) ? String(n) : n.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
}

export function registerAggregate(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_AGGREGATE_TOOL, 'Narrow with filters, or ask for fewer stats.', async (args) => {
    const answer = await backend.aggregate({
      collection: args.collection,
      filters: args.filters ?? {},
      ...(args.group_by === undefined ? {} : { group_by: args.group_by }),
      stats: args.stats ?? [],
    });
    if (answer.total === 0) await checkCollectionCase(backend, args.collection);
    const lines = [`Total matching records in "${args.collection}": ${answer.total}`];
    if (args.group_by !== undefined) {
      lines.push('', `Grouped by ${args.group_by} (largest first, at most ${AGGREGATE_GROUP_LIMIT}):`);
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
  });
}
