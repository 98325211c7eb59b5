import { createWriteStream, rmSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Option, type Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { counted, json } from '../output.js';
import { following, progressBar, type Bar } from '../progress.js';

interface ExportOptions extends CommonOptions {
  format: 'csv' | 'json';
  output?: string;
  status: 'active' | 'archived' | 'draft';
}

export function registerExport(program: Command, cli: Cli): void {
  common(program.command('export'))
    .summary("export a collection's records as CSV or JSON")
    .description(
      "Exports a collection's records (an admin API key): starts the export, follows it (with progress on a terminal), " +
        'then downloads the file to -o FILE, or to stdout. With --json (and -o) it prints the finished export\'s status.',
    )
    .argument('<collection>', 'the collection to export')
    .addOption(new Option('--format <format>', 'the file format').choices(['csv', 'json']).default('json'))
    .option('-o, --output <file>', 'write the file here (default: stdout)')
    .addOption(new Option('--status <status>', 'export the records of this status').choices(['active', 'archived', 'draft']).default('active'))
    .action(async (collection: string, opts: ExportOptions) => {
      if (opts.json && !opts.output) throw new UsageError('--json prints the export\'s status, and the file goes to stdout without -o: add -o FILE');
      const { client } = cli.client(opts, 'key');
      const started = await client.exports.start({ collection, format: opts.format, status: opts.status });
      let bar: Bar | undefined;
      let status;
      try {
        status = await following(cli.io.stderr, `export ${started.export_id} (\`trove export ${collection}\` again starts another)`, () =>
          client.exports.wait(started.export_id, {
            intervalMs: 300,
            timeoutMs: 0,
            onStatus: (s) => {
              bar ??= progressBar(cli.io.stderr, `Exporting ${collection}`, 'records');
              bar.update(s.progress, s.total);
            },
          }),
        );
      } finally {
        bar?.stop();
      }
      if (status.status !== 'completed') {
        const reason = (status as { error?: string }).error;
        throw new CliError(`export ${started.export_id} ${status.status}${reason ? `: ${reason}` : ''}`);
      }

      const body = (await client.exports.downloadStream(started.export_id)) as unknown as WebReadableStream<Uint8Array>;
      const source = Readable.fromWeb(body);
      if (opts.output) {
        const file = opts.output;
        try {
          await pipeline(source, createWriteStream(file));
        } catch (err) {
          rmSync(file, { force: true });
          throw new CliError(`could not write ${file}: ${(err as Error).message}`);
        }
        const done = { ...status, file };
        if (opts.json) cli.io.stdout.write(json(done));
        else cli.io.stdout.write(`Exported ${counted(status.total, 'record')} of "${collection}" as ${opts.format.toUpperCase()} to ${file}.\n`);
        return;
      }
      const out = cli.io.stdout;
      if (out instanceof Writable) {
        try {
          await pipeline(source, out, { end: false });
        } catch (err) {
          // The reader went away (`trove export … | head`): what it wanted it has.
          if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
          throw err;
        }
      }
      else {
        const decoder = new TextDecoder();
        for await (const chunk of source) out.write(decoder.decode(chunk as Uint8Array, { stream: true }));
        out.write(decoder.decode());
      }
      cli.note(`Exported ${counted(status.total, 'record')} of "${collection}" as ${opts.format.toUpperCase()}.`);
    });
}
