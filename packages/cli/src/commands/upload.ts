import { openAsBlob, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Progress, TroveClient } from '@trove/client';
import { Option, type Command } from 'commander';
import { common, type Cli, type CommonOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { bytes, clip, count, counted, fields, table, when } from '../output.js';
import { following, progressBar, type Bar } from '../progress.js';
import { integer } from './parse.js';

/** The file kinds Trove reads, by extension; anything else is sent as a records file for Trove to recognise. */
const RECORD_FILES = ['.csv', '.tsv', '.txt', '.json', '.ndjson', '.jsonl', '.xml'];

/** An upload's status as GET /uploads/{id} (key or portal) answers it. */
type UploadStatus = Awaited<ReturnType<TroveClient['uploads']['status']>>;

interface UploadOptions extends CommonOptions {
  collection: string;
  type: string;
  nameColumn?: string;
  recordTag?: string;
  wait: boolean;
}

/** The upload routes of a session: the key's, or the portal's for a person signed in without a key. */
export function uploadsOf(client: TroveClient, auth: 'key' | 'portal' | 'none') {
  return auth === 'portal' ? client.portal.uploads : client.uploads;
}

export function registerUpload(program: Command, cli: Cli): void {
  common(program.command('upload'))
    .summary('upload a CSV, JSON, NDJSON, XML or PDF file into a collection, with progress')
    .description(
      "Uploads a file's records into a collection: CSV, JSON (an array of records), NDJSON, XML (the elements named by " +
        '--record-tag, else the repeated children of the root) or PDF (1-3 pages one record, else one per page). Shows the ' +
        'bytes sent, then the records written (on a terminal), and ends with the counts and the number of dead letters ' +
        '(records refused; `trove uploads errors ID` lists them). Exits 1 when the upload failed.',
    )
    .argument('<file>', 'the file to upload')
    .requiredOption('--collection <name>', 'the collection the records go to (created by the first upload)')
    .requiredOption('--type <record-type>', "the records' type within the collection")
    .option('--name-column <column>', "the CSV column (JSON key, XML element) holding each record's name (default: name)")
    .option('--record-tag <element>', 'XML: the element that is one record')
    .option('--no-wait', 'answer with the upload id once the file is sent, without waiting for its records to be written')
    .action((file: string, opts: UploadOptions) => upload(cli, file, opts));

  const uploads = program.command('uploads').summary('list uploads, their status and their dead letters').description("The tenant's uploads (an API key with the upload scope, or the portal sign-in).");

  common(uploads.command('errors'))
    .summary("list an upload's dead letters: the records it refused, and why")
    .argument('<upload-id>', "the upload's id (printed by trove upload)")
    .action(async (uploadId: string, opts: CommonOptions) => {
      const { client, auth } = cli.client(opts, 'either');
      const letters = await uploadsOf(client, auth).errors(uploadId);
      cli.print(opts, letters, () =>
        letters.length === 0
          ? 'No dead letters: every record was stored.\n'
          : table(
              ['#', 'error', 'record'],
              letters.map((d) => [d.record_index, clip(d.error, 60), clip(JSON.stringify(d.record_data), 60)]),
            ) + `${counted(letters.length, 'dead letter')} (# is the record's place in the file, from 0).\n`,
      );
    });

  common(uploads.command('list'))
    .summary("list the tenant's uploads, newest first")
    .addOption(new Option('--status <status>', 'only uploads of this status').choices(['processing', 'complete', 'failed']))
    .option('--limit <n>', 'uploads per page (1-100, default 20)', integer)
    .option('--cursor <cursor>', 'the page after the one that answered this cursor')
    .action(async (opts: CommonOptions & { status?: 'processing' | 'complete' | 'failed'; limit?: number; cursor?: string }) => {
      const { client, auth } = cli.client(opts, 'either');
      const page = await uploadsOf(client, auth).list({ status: opts.status, limit: opts.limit, cursor: opts.cursor });
      cli.print(opts, page, () =>
        page.items.length === 0
          ? 'No uploads.\n'
          : table(
              ['id', 'status', 'collection', 'type', 'source', 'read', 'accepted', 'rejected', 'created'],
              page.items.map((u) => [
                u.id,
                u.status,
                u.collection,
                u.record_type,
                clip(u.source_name ?? u.source_type, 30),
                count(u.summary.submitted),
                count(u.summary.accepted),
                count(u.summary.rejected),
                when(u.created_at),
              ]),
            ) + (page.has_more && page.cursor ? `More: the same command with --cursor ${page.cursor}\n` : ''),
      );
    });

  common(uploads.command('status'))
    .summary("show an upload's counts and progress")
    .argument('<upload-id>', "the upload's id")
    .option('--wait', 'follow it until it has ended (with progress on a terminal)')
    .action(async (uploadId: string, opts: CommonOptions & { wait?: boolean }) => {
      const { client, auth } = cli.client(opts, 'either');
      const api = uploadsOf(client, auth);
      const status = opts.wait ? await follow(cli, api, uploadId) : await api.status(uploadId);
      cli.print(opts, status, () => summary(status));
      if (status.status === 'failed') throw new CliError(`upload ${uploadId} failed: ${status.failure ?? 'no reason given'}`, EXIT.user);
    });
}

async function upload(cli: Cli, path: string, opts: UploadOptions): Promise<void> {
  const size = fileSize(path);
  const { client, auth } = cli.client(opts, 'either');
  const filename = basename(path);
  const extension = extname(filename).toLowerCase();
  const isPdf = extension === '.pdf';
  if (isPdf && auth === 'portal') throw new CliError('PDF uploads need an API key with the upload scope: run `trove login`, or set TROVE_API_KEY');
  if (!isPdf && !RECORD_FILES.includes(extension)) cli.note(`trove: ${filename} has no known extension (${[...RECORD_FILES, '.pdf'].join(' ')}); Trove will tell its format from its content`);
  const fields = { name_column: opts.nameColumn, record_tag: opts.recordTag };
  if (isPdf && (opts.nameColumn || opts.recordTag)) cli.note('trove: --name-column and --record-tag do not apply to a PDF; ignored');

  const sending = progressBar(cli.io.stderr, `Sending ${clip(filename, 24)}`, 'bytes');
  sending.update(0, size);
  const request = {
    file: await openAsBlob(path),
    filename,
    respondAsync: true,
    onProgress: ({ loaded, total }: Progress) => sending.update(loaded, total),
  };
  let answer;
  try {
    answer = isPdf
      ? await client.uploads.pdf(opts.collection, opts.type, request)
      : auth === 'portal'
        ? await client.portal.uploadFile(opts.collection, opts.type, { ...request, fields })
        : await client.uploads.file(opts.collection, opts.type, { ...request, fields });
  } finally {
    sending.stop();
  }

  // 201: a server that wrote the records before answering (it did not apply respond-async).
  if ('summary' in answer) {
    const done = answer;
    cli.print(opts, done, () => summary({ ...done, id: done.upload_id }));
    return;
  }
  if (!opts.wait) {
    cli.print(opts, answer, () => `Upload ${answer.upload_id} is processing: \`trove uploads status ${answer.upload_id} --wait\` follows it.\n`);
    return;
  }
  const status = await follow(cli, uploadsOf(client, auth), answer.upload_id);
  cli.print(opts, status, () => summary(status));
  if (status.status === 'failed') throw new CliError(`upload ${status.id} failed: ${status.failure ?? 'no reason given'}`, EXIT.user);
}

/** The file's size; a refusal naming the problem when it is missing, a folder or unreadable. */
function fileSize(path: string): number {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `${path}: no such file` : `${path}: ${(err as Error).message}`);
  }
  if (!stat.isFile()) throw new CliError(`${path}: not a file`);
  return stat.size;
}

/**
 * Reads an upload's status until it has ended, drawing the records written on a terminal: of the records in all when
 * the upload knows them (a replace, a batch), else of the bytes of the file read so far.
 */
async function follow(cli: Cli, api: ReturnType<typeof uploadsOf>, uploadId: string): Promise<UploadStatus> {
  let bar: Bar | undefined;
  try {
    return await following(cli.io.stderr, `\`trove uploads status ${uploadId} --wait\``, () => api.wait(uploadId, {
      intervalMs: 300,
      timeoutMs: 0,
      onStatus: (s) => {
        const p = s.progress;
        const byRecords = p.records_total !== null;
        bar ??= byRecords
          ? progressBar(cli.io.stderr, 'Writing records', 'records', ' | {accepted} accepted, {rejected} rejected')
          : progressBar(cli.io.stderr, 'Writing records', 'bytes', ' read | {records} records, {accepted} accepted, {rejected} rejected');
        const extra = { records: count(s.summary.submitted), accepted: count(s.summary.accepted), rejected: count(s.summary.rejected) };
        if (byRecords) bar.update(p.records_read, p.records_total ?? undefined, extra);
        else bar.update(p.bytes_read ?? 0, p.bytes_total ?? undefined, extra);
      },
    }));
  } finally {
    bar?.stop();
  }
}

/** An upload's outcome for people: its counts, time and dead letters. */
export function summary(s: {
  id: string;
  status: string;
  summary: { submitted: number; accepted: number; rejected: number; dedup_skipped: number };
  metadata: { processing_time_ms: number | null };
  progress?: { bytes_read: number | null };
  failure?: string | null;
}): string {
  const took = s.metadata.processing_time_ms === null ? '' : ` in ${(s.metadata.processing_time_ms / 1000).toFixed(1)} s`;
  const read = s.progress?.bytes_read ? ` (${bytes(s.progress.bytes_read)})` : '';
  const lines = [
    `Upload ${s.id} ${s.status}${s.status === 'processing' ? '' : took}: ${counted(s.summary.submitted, 'record')} read${read}`,
    fields([
      ['  accepted', count(s.summary.accepted)],
      ['  rejected', count(s.summary.rejected)],
      ['  dedup skipped', count(s.summary.dedup_skipped)],
    ]).trimEnd(),
  ];
  if (s.failure) lines.push(`Failure: ${s.failure}`);
  lines.push(
    s.summary.rejected === 0
      ? 'Dead letters: 0'
      : `Dead letters: ${count(s.summary.rejected)} (\`trove uploads errors ${s.id}\` lists them)`,
  );
  return `${lines.join('\n')}\n`;
}
