import type { Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { clip, count, table } from '../output.js';
import { filter, integer, type FilterValue } from './parse.js';

interface SearchOptions extends CommonOptions {
  filter?: Record<string, FilterValue>;
  limit?: number;
  offset?: number;
  sort?: string;
  open?: boolean;
  allCollections?: boolean;
}

/** One result as both searches answer it. */
interface Hit {
  record_id: string;
  name: string;
  score: number;
  collection: string;
  record_type: string;
}

export function registerSearch(program: Command, cli: Cli): void {
  common(program.command('search'))
    .summary("search a collection's records (--open: every tenant's public records)")
    .description(
      "Searches a collection's records by text, identifier (EAN, DIN/ISO, part number) and filters, best matches first, " +
        'and prints them as a table. With an API key (search scope); --open searches the public records of every tenant ' +
        'through the Open API, without a credential: one collection, or --all-collections.',
    )
    .argument('[collection]', 'the collection to search')
    .argument('[query]', 'the search text (optional when --filter is given)')
    .option('--filter <key=value>', 'a filter on collection_data (repeatable; key suffixes _min, _max, _gt, _lt, _in; a,b means any of)', filter)
    .option('--limit <n>', 'results per page (1-100; Open API 1-50)', integer)
    .option('--offset <n>', 'results to skip', integer)
    .option('--sort <field>', 'sort by a field (name, updated_at, a collection_data field; -field descending)')
    .option('--open', "search the Open API (public records of every tenant's collections; no credential)")
    .option('--all-collections', 'with --open: search every public collection (the one argument is then the query)')
    .action(async (collectionArgument: string | undefined, queryArgument: string | undefined, opts: SearchOptions) => {
      if (opts.allCollections && !opts.open) throw new UsageError('--all-collections searches the Open API: add --open');
      // With --all-collections there is no collection: the one argument given is the query.
      const [collection, query] = opts.allCollections ? [undefined, collectionArgument] : [collectionArgument, queryArgument];
      if (opts.allCollections && queryArgument !== undefined) throw new UsageError('with --all-collections give only the query');
      if (!opts.allCollections && collection === undefined) throw new UsageError('name the collection to search (trove search COLLECTION QUERY), or --open --all-collections');
      const filters = opts.filter ?? {};
      if (query === undefined && Object.keys(filters).length === 0) throw new UsageError('give a query, a --filter, or both');
      const request = {
        ...(query !== undefined && { query }),
        ...(Object.keys(filters).length > 0 && { filters }),
        ...(opts.limit !== undefined && { limit: opts.limit }),
        ...(opts.offset !== undefined && { offset: opts.offset }),
        ...(opts.sort !== undefined && { sort: opts.sort }),
      };
      const answer = opts.open
        ? await cli.client(opts, 'none').client.open.search({ ...request, ...(collection !== undefined && { collection }) })
        : await cli.client(opts, 'key').client.search(collection!, request);
      cli.print(opts, answer, () => results(answer.results, answer.pagination, answer.metadata, opts.open === true));
    });
}

function results(
  hits: Hit[],
  pagination: { offset: number; limit: number; has_more: boolean },
  metadata: { search_mode: string; processing_time_ms: number; total_estimate: number; zero_result_fallback_used?: boolean },
  open: boolean,
): string {
  if (hits.length === 0) return `No results (${metadata.search_mode}, ${metadata.processing_time_ms} ms).\n`;
  const head = ['#', 'name', 'score', ...(open ? ['collection'] : []), 'type', 'id'];
  const rows = hits.map((h, i) => [pagination.offset + i + 1, clip(h.name, 50), h.score.toFixed(2), ...(open ? [h.collection] : []), h.record_type, h.record_id]);
  const notes = [
    `${count(pagination.offset + 1)}-${count(pagination.offset + hits.length)} of ${count(metadata.total_estimate)} (${metadata.search_mode}, ${metadata.processing_time_ms} ms)`,
  ];
  if (metadata.zero_result_fallback_used) notes.push('nothing matched the query with the filters: these match the filters alone');
  if (pagination.has_more) notes.push(`more: --offset ${pagination.offset + hits.length}`);
  return `${table(head, rows)}${notes.join('; ')}\n`;
}
