import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { MAX_OFFSET, type SearchAnswer } from '@trove/contracts';
import { z } from 'zod';
import { describeCuts, fitted } from '../domain/answer';
import { compact, keyData, table } from '../domain/format';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';
import { checkCollectionCase, collection, eitherName, filters, guarded, sameAs, toolInput, type Filters } from './common';

/** The search text under either of its names, each named in its own errors. */
const searchText = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, { error: `${name} must not be empty; leave it out to search by filters only` })
    .max(500, { error: `${name} must be at most 500 characters` })
    .optional();

const input = toolInput({
  collection,
  query: searchText('query').describe(
    'Search text: keywords, a question, or an identifier (EAN/GTIN, DIN/ISO standard, part number, SKU: exact matches score 1.0). Optional when filters are given.',
  ),
  q: searchText('q').describe(sameAs('query', 'trove_list calls its search text `q`')),
  filters,
  sort: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Sort field: name, updated_at, record_type, score (relevance) or a collection_data field; prefix "-" for descending, e.g. "-price". Default: relevance.'),
  limit: z.int({ error: 'limit must be an integer from 1 to 50' }).min(1, { error: 'limit must be at least 1' }).max(50, { error: 'limit must be at most 50' }).default(10).describe('Results per page, 1-50 (default 10)'),
  offset: z.int({ error: 'offset must be a whole number >= 0' }).min(0, { error: 'offset must be >= 0' }).max(MAX_OFFSET, { error: `offset must be at most ${MAX_OFFSET}` }).default(0).describe('Results to skip, for paging (default 0)'),
  format: z.enum(['markdown', 'json'], { error: 'format must be "markdown" or "json"' }).default('markdown').describe('markdown (default): a compact table; json: the results as JSON'),
});

type Args = { collection: string; query?: string; q?: string; filters?: Filters; sort?: string; limit: number; offset: number; format: 'markdown' | 'json' };

export function registerSearch(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_search',
    {
      title: 'Search records',
      description:
        'Searches the records of one collection by text, identifier and/or filters on collection_data fields, best matches first. ' +
        'Give `query`, `filters`, or both. If query plus filters find nothing, the query is dropped and the filters alone are ' +
        'retried; the answer then says so. Returns a table with record ids (pass one to trove_lookup for the full record) ' +
        'and the total count. Call trove_schema first to learn the field names and filter syntax.',
      inputSchema: input,
      annotations: { readOnlyHint: true },
    },
    guarded<Args>(logger, 'trove_search', 'Narrow with filters or a smaller limit; trove_lookup shows one result in full.', async (args) => {
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
        format: 'json',
      });
      if (answer.results.length === 0 && args.offset === 0) await checkCollectionCase(backend, args.collection);
      return args.format === 'json' ? searchJson(answer) : searchMarkdown(args, answer);
    }),
  );
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
        ? `No results at offset ${pagination.offset} (about ${metadata.total_estimate} in total).`
        : `No records in collection "${args.collection}" match. Try fewer filters or other words; trove_schema shows the fields and sample values.`,
    );
    return lines.join('\n');
  }
  const first = pagination.offset + 1;
  lines.push(`Results ${first}-${pagination.offset + results.length} of about ${metadata.total_estimate} (search mode: ${metadata.search_mode}).`, '');
  lines.push(
    table(
      ['#', 'Name', 'Score', 'Type', 'Key data', 'Record ID'],
      results.map((r, i) => [first + i, r.name, r.score.toFixed(2), r.record_type, keyData(r.collection_data), r.record_id]),
    ),
  );
  if (pagination.has_more) lines.push('', `More results: call again with offset ${pagination.offset + results.length}.`);
  return lines.join('\n');
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
      metadata,
      ...(answer.metadata.zero_result_fallback_used ? { note: FALLBACK_NOTE } : {}),
      ...(cut === undefined ? {} : { cut: `To fit the answer, ${cut}. Ask for fewer results (limit) to see more of each; trove_lookup shows one record in full.` }),
    });
  });
}
