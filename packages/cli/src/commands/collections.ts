import type { Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { clip, count, counted, fields, table } from '../output.js';
import { ask } from '../prompt.js';

export function registerCollections(program: Command, cli: Cli): void {
  const collections = program
    .command('collections')
    .summary("list, describe and delete the tenant's collections")
    .description("The tenant's collections (an API key with the records scope; --open: every tenant's public ones).");

  common(collections.command('list'))
    .summary('list the collections with their record types and counts')
    .option('--open', "list the Open API's collections (public records of every tenant; no credential)")
    .option('--query <text>', 'with --open: only collections whose name or description holds this text')
    .action(async (opts: CommonOptions & { open?: boolean; query?: string }) => {
      if (opts.query !== undefined && !opts.open) throw new UsageError('--query filters the Open API listing: add --open');
      if (opts.open) {
        const { client } = cli.client(opts, 'none');
        const answer = await client.call('GET', '/open/v1/collections', { params: { query: { q: opts.query } } });
        cli.print(opts, answer, () =>
          answer.length === 0
            ? 'No public collections.\n'
            : table(
                ['collection', 'record types', 'public records', 'description'],
                answer.map((c) => [c.collection, c.record_types.join(', '), count(c.record_count), clip(c.description ?? '', 60)]),
              ),
        );
        return;
      }
      const { client } = cli.client(opts, 'key');
      const answer = await client.collections.list();
      cli.print(opts, answer, () =>
        answer.collections.length === 0
          ? 'No collections yet: `trove upload FILE --collection NAME --type TYPE` makes one.\n'
          : table(
              ['collection', 'record types', 'records', 'indexed', 'pending', 'processing', 'failed'],
              answer.collections.map((c) => [c.name, c.record_types.join(', '), count(c.total_records), count(c.indexed), count(c.pending), count(c.processing), count(c.failed)]),
            ),
      );
    });

  common(collections.command('schema'))
    .summary("show a collection's fields: names, inferred types and sample values")
    .argument('<collection>', "the collection's name")
    .option('--type <record-type>', 'only the fields of this record type')
    .option('--open', "the Open API's view: the public records' filterable fields (no credential)")
    .action(async (collection: string, opts: CommonOptions & { type?: string; open?: boolean }) => {
      if (opts.open) {
        if (opts.type !== undefined) throw new UsageError('--type is not available with --open (the Open API describes the whole collection)');
        const { client } = cli.client(opts, 'none');
        const schema = await client.open.schema(collection);
        cli.print(
          opts,
          schema,
          () =>
            fields([
              ['collection', schema.collection],
              ['record types', schema.record_types.join(', ')],
              ['public records', count(schema.record_count)],
              ['description', schema.description],
            ]) +
            (schema.filterable_fields.length === 0 ? 'No filterable fields.\n' : `Filterable fields:\n${schema.filterable_fields.map((f) => `  ${f}`).join('\n')}\n`),
        );
        return;
      }
      // The schema is inferred by the MCP service's trove_schema tool, the one place that infers it from records.
      const { client } = cli.client(opts, 'key');
      const result = await client.mcp.callTool('trove_schema', { collection, ...(opts.type !== undefined && { record_type: opts.type }) });
      const text = result.content.map((c) => c.text ?? '').join('\n');
      if (result.isError) throw new CliError(text.split('\n')[0] ?? 'the schema could not be read');
      cli.print(opts, result, () => `${text.trimEnd()}\n`);
    });

  common(collections.command('delete'))
    .summary('archive every record of a collection (needs the portal sign-in)')
    .argument('<collection>', "the collection's name")
    .option('--yes', 'do not ask for confirmation (needed where there is no terminal to ask on)')
    .action(async (collection: string, opts: CommonOptions & { yes?: boolean }) => {
      const { client } = cli.client(opts, 'portal');
      if (!opts.yes) {
        if (!cli.io.stdin.isTTY) throw new UsageError(`this archives every record of "${collection}": add --yes to confirm`);
        const answer = await ask(cli.io.stdin, cli.io.stderr, `Archive every record of "${collection}"? Type the collection's name to confirm: `);
        if (answer !== collection) throw new CliError('not confirmed; nothing was archived');
      }
      const answer = await client.portal.deleteCollection(collection);
      cli.print(opts, answer, () => `Archived ${counted(answer.records_archived, 'record')} of "${answer.collection}"; they are gone from search.\n`);
    });
}
