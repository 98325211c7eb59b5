import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { TROVE_SEARCH_TOOL, type FederatedAnswer, type SearchAnswer } from '@trove/contracts';
import { describeCuts, fitted } from '../domain/answer';
import { compact, keyData, table } from '../domain/format';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';
import { checkCollectionCase, eitherName, registerTool } from './common';


export function registerSearch(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_SEARCH_TOOL, 'Narrow with filters or a smaller limit; trove_lookup shows one result in full.', async (args) => {
    const query = eitherName<string>(args, 'query', 'q');
    if (query === undefined && Object.keys(args.filters ?? {}).length === 0) {
      throw new ToolError('Give a query, filters, or both (for example query "hex bolt" or filters {"material": "steel"}).');
    }
    const body = {
      ...(query === undefined ? {} : { query }),
      ...(args.sort === undefined ? {} : { sort: args.sort }),
      filters: args.filters ?? {},
      ...(args.exact_total === undefined ? {} : { exact_total: args.exact_total }),
      ...(args.facets === undefined ? {} : { facets: args.facets }),
    };
    const collections = [...new Set(Array.isArray(args.collection) ? args.collection : [args.collection])];
    if (collections.length > 1) {
      // Several collections: one federated list, paged by this call's limit and offset.
      const answer = await backend.federated({
        queries: collections.map((collection) => ({ ...body, collection })),
        federation: { limit: args.limit, offset: args.offset },
      });
      return args.format === 'json' ? federatedJson(answer) : federatedMarkdown(answer);
    }
    const collection = collections[0]!;
    const answer = await backend.search(collection, { ...body, limit: args.limit, offset: args.offset, format: 'json' });
    if (answer.results.length === 0 && args.offset === 0) await checkCollectionCase(backend, collection);
    return args.format === 'json' ? searchJson(answer) : searchMarkdown(collection, answer);
  });
}

const FALLBACK_NOTE =
  'Note: nothing matched the query together with the filters, so the query was dropped and these results match the filters alone.';

function searchMarkdown(collection: string, answer: SearchAnswer): string {
  const { results, metadata, pagination } = answer;
  const lines: string[] = [];
  if (metadata.zero_result_fallback_used) lines.push(FALLBACK_NOTE, '');
  if (results.length === 0) {
    lines.push(
      pagination.offset > 0
        ? `No results at offset ${pagination.offset} (${metadata.total_is_estimate ? 'about ' : ''}${metadata.total_estimate} in total).`
        : `No records in collection "${collection}" match. Try fewer filters or other words; trove_schema shows the fields and sample values.`,
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

/** Several collections' matches as one table, with the collection of each, and each collection's total and facets. */
function federatedMarkdown(answer: FederatedAnswer): string {
  const { results, metadata, pagination } = answer;
  const totals = metadata.queries.map((q) => `${q.collection}: ${q.total_is_estimate ? 'about ' : ''}${q.total_estimate}`).join(', ');
  if (results.length === 0) {
    return pagination.offset > 0
      ? `No results at offset ${pagination.offset} (${totals}).`
      : `No records in these collections match (${totals}). Try fewer filters or other words; trove_collections lists the collections.`;
  }
  const first = pagination.offset + 1;
  const lines = [`Results ${first}-${pagination.offset + results.length} of ${metadata.total_is_estimate ? 'about ' : ''}${metadata.total_estimate} (${totals}).`, ''];
  lines.push(
    table(
      ['#', 'Name', 'Score', 'Collection', 'Type', 'Key data', 'Record ID'],
      results.map((r, i) => [first + i, r.name, r.score.toFixed(2), r.collection, r.record_type, keyData(r.collection_data), r.record_id]),
    ),
  );
  if (pagination.has_more) lines.push('', `More results: call again with offset ${pagination.offset + results.length}.`);
  for (const q of metadata.queries) if (q.facets) lines.push('', ...facetLines(q.facets, q.collection));
  return lines.join('\n');
}

function federatedJson(answer: FederatedAnswer): string {
  return fitted((budget) => {
    const share = Math.floor(budget / Math.max(1, answer.results.length));
    const results = answer.results.map((r) => compact(r, share).value);
    return JSON.stringify({ results, pagination: answer.pagination, total: answer.metadata.total_estimate, metadata: answer.metadata });
  });
}

/** Each facet on a line of its own: its values with their counts, then its numbers' range and average. */
function facetLines(facets: NonNullable<SearchAnswer['facets']>, collection?: string): string[] {
  const lines = [collection === undefined ? 'Facets (over every match):' : `Facets of ${collection} (over every match):`];
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
