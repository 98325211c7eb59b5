import { openAsBlob, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { TroveClient } from '@trove/client';
import type { Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { CliError } from '../errors.js';
import { clip, count, counted, fields } from '../output.js';
import { following, progressBar, type Bar } from '../progress.js';
import { summary } from './upload.js';

type ReplaceStatus = Awaited<ReturnType<TroveClient['portal']['replace']['status']>>;

interface ReplaceOptions extends CommonOptions {
  type: string;
  nameColumn?: string;
  recordTag?: string;
  sourceName?: string;
  wait?: boolean;
  swap?: boolean;
}

export function registerReplace(program: Command, cli: Cli): void {
  const replace = program
    .command('replace')
    .summary('replace a collection blue-green: stage a file, then swap it in or cancel (needs the portal sign-in)')
    .description(
      "Replaces every record of a collection at once (docs/behaviour/blue-green-replace.md): the file becomes a staging " +
        'generation, indexed beside the live records, which search keeps showing; `trove replace swap` makes it live ' +
        '(the old records are deleted) once every staged record is indexed, `trove replace cancel` drops it. ' +
        '`trove replace COLLECTION FILE` is `trove replace upload COLLECTION FILE`.',
    );

  common(replace.command('upload', { isDefault: true }))
    .summary('stage FILE as the next generation of COLLECTION (the default subcommand)')
    .argument('<collection>', 'the collection to replace (it must exist)')
    .argument('<file>', 'the new records: CSV, JSON, NDJSON, XML or PDF')
    .requiredOption('--type <record-type>', "the new records' type")
    .option('--name-column <column>', "the CSV column (JSON key, XML element) holding each record's name (default: name)")
    .option('--record-tag <element>', 'XML: the element that is one record')
    .option('--source-name <name>', "the records' source_name (default: the file's name)")
    .option('--wait', 'then follow the indexing of the staged records until they are ready to swap')
    .option('--swap', 'then wait until they are ready and swap them in')
    .action((collection: string, file: string, opts: ReplaceOptions) => stage(cli, collection, file, opts));

  common(replace.command('status'))
    .summary("show where a collection's replace stands, and whether it is ready to swap")
    .argument('<collection>', "the collection's name")
    .option('--wait', 'follow it until it is ready to swap (or indexing ended with failures)')
    .action(async (collection: string, opts: CommonOptions & { wait?: boolean }) => {
      const { client } = cli.client(opts, 'portal');
      const status = opts.wait ? await waitIndexed(cli, client, collection) : await client.portal.replace.status(collection);
      cli.print(opts, status, () => statusText(collection, status));
    });

  common(replace.command('swap'))
    .summary('make the staged generation live and delete the old records (once every staged record is indexed)')
    .argument('<collection>', "the collection's name")
    .option('--wait', 'wait until the staged records are ready to swap first')
    .action(async (collection: string, opts: CommonOptions & { wait?: boolean }) => {
      const { client } = cli.client(opts, 'portal');
      if (opts.wait) await readyToSwap(cli, client, collection);
      const swapped = await client.portal.replace.swap(collection);
      cli.print(opts, swapped, () => swapText(swapped));
    });

  common(replace.command('cancel'))
    .summary('drop the staged generation (the live records are not touched)')
    .argument('<collection>', "the collection's name")
    .action(async (collection: string, opts: CommonOptions) => {
      const { client } = cli.client(opts, 'portal');
      const cancelled = await client.portal.replace.cancel(collection);
      cli.print(opts, cancelled, () => `Cancelled the replace of "${cancelled.collection}": generation ${cancelled.cancelled_generation} dropped, ${counted(cancelled.records_archived, 'staged record')} archived.\n`);
    });
}

async function stage(cli: Cli, collection: string, path: string, opts: ReplaceOptions): Promise<void> {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch (err) {
    throw new CliError(`${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const { client } = cli.client(opts, 'portal');
  const filename = basename(path);
  const sending = progressBar(cli.io.stderr, `Sending ${clip(filename, 24)}`, 'bytes');
  sending.update(0, size);
  let answer;
  try {
    answer = await client.portal.replace.upload(
      collection,
      { recordType: opts.type, name_column: opts.nameColumn, record_tag: opts.recordTag, source_name: opts.sourceName },
      { file: await openAsBlob(path), filename, respondAsync: true, onProgress: ({ loaded, total }) => sending.update(loaded, total) },
    );
  } finally {
    sending.stop();
  }
  const generation = answer.staging.generation;

  // 202: the file is counted and staged, its records being written: follow them (the replace knows how many).
  let upload: unknown = answer;
  let uploaded: Parameters<typeof summary>[0];
  if ('summary' in answer) uploaded = { ...answer, id: answer.upload_id };
  else {
    let bar: Bar | undefined;
    try {
      const uploadId = answer.upload_id;
      const status = await following(cli.io.stderr, `\`trove replace status ${collection} --wait\``, () =>
        client.portal.uploads.wait(uploadId, {
          intervalMs: 300,
          timeoutMs: 0,
          onStatus: (s) => {
            bar ??= progressBar(cli.io.stderr, 'Writing records', 'records', ' | {accepted} accepted, {rejected} rejected');
            bar.update(s.progress.records_read, s.progress.records_total ?? undefined, { accepted: count(s.summary.accepted), rejected: count(s.summary.rejected) });
          },
        }),
      );
      upload = status;
      uploaded = status;
    } finally {
      bar?.stop();
    }
    if (uploaded.status === 'failed') {
      if (opts.json) cli.io.stdout.write(`${JSON.stringify({ upload }, null, 2)}\n`);
      throw new CliError(`the replace's upload ${uploaded.id} failed: ${uploaded.failure ?? 'no reason given'}`);
    }
  }

  const result: Record<string, unknown> = { upload };
  let text = `${summary(uploaded)}Staged as generation ${generation} of "${collection}".\n`;
  if (opts.wait || opts.swap) {
    const status = opts.swap ? await readyToSwap(cli, client, collection) : await waitIndexed(cli, client, collection);
    result.replace = status;
    text += statusText(collection, status);
  }
  if (opts.swap) {
    const swapped = await client.portal.replace.swap(collection);
    result.swap = swapped;
    text += swapText(swapped);
  } else text += `Next: \`trove replace status ${collection}\`, then \`trove replace swap ${collection}\` (or \`trove replace cancel ${collection}\`).\n`;
  cli.print(opts, result, () => text);
}

/** Follows the staged records' indexing (indexed of total, on a terminal) until it has ended. */
async function waitIndexed(cli: Cli, client: TroveClient, collection: string): Promise<ReplaceStatus> {
  let bar: Bar | undefined;
  try {
    return await following(cli.io.stderr, `\`trove replace status ${collection} --wait\``, () =>
      client.portal.replace.wait(collection, {
        intervalMs: 500,
        timeoutMs: 0,
        onStatus: (s) => {
          if (!s.has_pending_replace) return;
          bar ??= progressBar(cli.io.stderr, 'Indexing staged records', 'records', ' | {failed} failed');
          bar.update(s.indexed ?? 0, s.total ?? undefined, { failed: count(s.failed ?? 0) });
        },
      }),
    );
  } finally {
    bar?.stop();
  }
}

/** Waits for the staged records to be ready to swap; a refusal when there is no replace or some failed to index. */
async function readyToSwap(cli: Cli, client: TroveClient, collection: string): Promise<ReplaceStatus> {
  const status = await waitIndexed(cli, client, collection);
  if (!status.has_pending_replace) throw new CliError(`"${collection}" has no staged replace to swap`);
  if (!status.ready_to_swap) throw new CliError(`${count(status.failed ?? 0)} staged records of "${collection}" failed to index: the replace cannot be swapped (\`trove replace cancel ${collection}\` drops it)`);
  return status;
}

function statusText(collection: string, s: ReplaceStatus): string {
  if (!s.has_pending_replace) return `"${collection}" has no replace pending.\n`;
  return fields([
    ['collection', collection],
    ['staging generation', s.staging_generation],
    ['phase', s.phase],
    ['records', count(s.total ?? 0)],
    ['indexed', count(s.indexed ?? 0)],
    ['pending', count(s.pending ?? 0)],
    ['processing', count(s.processing ?? 0)],
    ['failed', count(s.failed ?? 0)],
    ['ready to swap', s.ready_to_swap ? 'yes' : 'no'],
  ]);
}

function swapText(s: { collection: string; old_generation: number; new_generation: number; old_record_count: number; new_record_count: number; deleted: number }): string {
  return `Swapped "${s.collection}": generation ${s.new_generation} (${counted(s.new_record_count, 'record')}) is live; generation ${s.old_generation} (${counted(s.old_record_count, 'record')}) deleted.\n`;
}
