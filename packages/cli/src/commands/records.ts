import { Option, type Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { fields, table, when } from '../output.js';
import { integer } from './parse.js';

interface ListOptions extends CommonOptions {
  collection?: string;
  type?: string;
  query?: string;
  status?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
}

export function registerRecords(program: Command, cli: Cli): void {
  const records = program.command('records').summary('read records').description("Reads the tenant's records (an API key with the records scope; --open: a public record).");

  common(records.command('get'))
    .summary('show one record in full')
    .argument('<id>', "the record's id")
    .option('--open', 'read a public record through the Open API (no credential)')
    .action(async (id: string, opts: CommonOptions & { open?: boolean }) => {
      const { client } = cli.client(opts, opts.open ? 'none' : 'key');
      const record = opts.open ? await client.open.record(id) : await client.records.get(id);
      cli.print(opts, record, () => {
        const { collection_data: data, ...rest } = record as Record<string, unknown>;
        return fields(Object.entries(rest).map(([k, v]) => [k, v ?? ''])) + `collection_data:\n${indent(JSON.stringify(data ?? {}, null, 2))}\n`;
      });
    });

  common(records.command('list'))
    .summary("list a collection's records, newest first, a page at a time")
    .option('--collection <name>', 'the collection (default: every collection)')
    .option('--type <record-type>', 'only records of this type')
    .option('--query <text>', 'only records whose name holds this text')
    .addOption(new Option('--status <status>', 'records of this status').choices(['active', 'archived', 'draft']))
    .option('--limit <n>', 'records per page (1-100; the server says 20 unless given)', integer)
    .option('--cursor <cursor>', 'the page after the one that answered this cursor')
    .option('--all', 'every page (with --json: one array of every record)')
    .action(async (opts: ListOptions) => {
      const { client } = cli.client(opts, 'key');
      const query = { collection: opts.collection, record_type: opts.type, q: opts.query, status: opts.status as 'active' | undefined, limit: opts.limit };
      const rows = (items: { id: string; name: string; collection: string; record_type: string; indexing_status: string; updated_at: string }[]) =>
        items.map((r) => [r.id, r.name, r.collection, r.record_type, r.indexing_status, when(r.updated_at)]);
      const head = ['id', 'name', 'collection', 'type', 'indexing', 'updated'];
      if (opts.all) {
        const items = await client.records.iterate(query).toArray();
        cli.print(opts, items, () => (items.length === 0 ? 'No records.\n' : table(head, rows(items))));
        return;
      }
      const page = await client.records.list({ ...query, cursor: opts.cursor });
      cli.print(opts, page, () =>
        page.items.length === 0
          ? 'No records.\n'
          : table(head, rows(page.items)) + (page.has_more && page.cursor ? `More: the same command with --cursor ${page.cursor} (or --all)\n` : ''),
      );
    });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
