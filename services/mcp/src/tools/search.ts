import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { TROVE_SEARCH_TOOL, type McpToolArgs, type SearchAnswer } from '@trove/contracts';
import { describeCuts, fitted } from '../domain/answer';
import { compact, keyData, table } from '../domain/format';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';
import { checkCollectionCase, eitherName, registerTool } from './common';

type Args = McpToolArgs<typeof TROVE_SEARCH_TOOL>;

export function registerSearch(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_SEARCH_TOOL, 'Narrow with filters or a smaller limit; trove_lookup shows one result in full.', async (args) => {
    const query = eitherName<string>(args, 'query', 'q');
    if (query === undefined && Object.keys(args.filters ?? {}).length === 0) {
      throw new ToolError('Give a query, filters, or both (for example query "hex bolt" or filters {"material": "steel"}).');
    }
    const answer = await backend.search(args.collection, {
      ...(query === undefined ? {} : { query }),
      ...(args.sort === undefined ? {} : { sort: args.sort }),
      filters: args.filters ?? {},
      limit: args.limit,
      offset: args.offset,
      ...(args.exact_total === undefined ? {} : { exact_total: args.exact_total }),
      ...(args.facets === undefined ? {} : { facets: args.facets }),
      format: 'json',
    });
    if (answer.results.length === 0 && args.offset === 0) await checkCollectionCase(backend, args.collection);
    return args.format === 'json' ? searchJson(answer) : searchMarkdown(args, answer);
  });
}

const FALLBACK_NOTE =
  'Note: nothing matched the query together with the filters, so the query was dropped and these results match the filters alone.';

function searchMarkdown(args: Args, answer: SearchAnswer): string {
  const { results, metadata, pagination } = answer;
  const lines: string[] = [];
  if (metadata.zero_result_fallback_used) lines.push(FALLBACK_NOTE, '');
  if (results.length === 0) {
    lines.push(
      pagination.offset > 0
        ? `No results at offset ${pagination.offset} (${metadata.total_is_estimate ? 'about ' : ''}${metadata.total_estimate} in total).`
        : `No records in collection "${args.collection}" match. Try fewer filters or other words; trove_schema shows the fields and sample values.`,
    );
    return lines.join('\n');
  }
  const first = pagination.offset + 1;
  lines.push(`Results ${first}-${pagination.offset + results.length} of ${metadata.total_is_estimate ? 'about ' : ''}${metadata.total_estimate} (search mode: ${metadata.search_mode}).`, '');
  lines.push(
    table(
      ['#', 'Name', 'Score', 'Type', 'Key data', 'Record ID'],
      results.map((r, i) => [first + i, r.name, r.score.toFixed(2), r.record_type, keyData(r.collection_data), r.record_id]),
    ),
  );
  if (pagination.has_more) lines.push('', `More results: call again with offset ${pagination.offset + results.length}.`);
  if (answer.facets) lines.push('', ...facetLines(answer.facets));
  return lines.join('\n');
}

/** Each facet on a line of its own: its values with their counts, then its numbers' range and average. */
function facetLines(facets: NonNullable<SearchAnswer['facets']>): string[] {
  const lines = ['Facets (over every match):'];
  for (const [field, { values, stats }] of Object.entries(facets)) {
    const counted = values.length === 0 ? 'no values' : values.map((v) => `${String(v.value)} (${v.count})`).join(', ');
    const range = stats ? `; numbers: min ${stats.min}, max ${stats.max}, average ${Math.round(stats.avg! * 100) / 100} over ${stats.count}` : '';
    lines.push(`- ${field}: ${counted}${range}`);
  }
  return lines;
}

/** Results as JSON, each given an equal share of the compaction budget so that one wide record cannot crowd out the rest. */
function searchJson(answer: SearchAnswer): string {
  const { timings: _timings, ...metadata } = answer.metadata;
  return fitted((budget) => {
    const share = Math.floor(budget / Math.max(1, answer.results.length));
    const cuts = { fields: 0, items: 0, values: 0 };
    const results = answer.results.map((r) => {
      const c = compact(r, share);
      cuts.fields += c.cuts.fields;
      cuts.items += c.cuts.items;
      cuts.values += c.cuts.values;
      return c.value;
    });
    const cut = describeCuts(cuts);
    return JSON.stringify({
      results,
      pagination: answer.pagination,
      total: answer.metadata.total_estimate,
      ...(answer.facets && { facets: answer.facets }),
      metadata,
      ...(answer.metadata.zero_result_fallback_used ? { note: FALLBACK_NOTE } : {}),
      ...(cut === undefined ? {} : { cut: `To fit the answer, ${cut}. Ask for fewer results (limit) to see more of each; trove_lookup shows one record in full.` }),
    });
  });
}
