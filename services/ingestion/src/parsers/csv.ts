import { Readable } from 'node:stream';
import { COLLECTION_DATA_MAX_FIELDS, FIELD_NAME_MAX_LENGTH } from '@trove/contracts';
import { pipeline } from 'node:stream/promises';
import { parse, type CsvError } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { decodeText } from './decode';
import { consistentDelimiter, DELIMITER_SAMPLE_CHARACTERS, DELIMITERS } from './delimited';
import { MAX_RECORD_CHARACTERS, UnparseableFileError, type ParsedItem, type ParseOptions, type Parser } from './types';
import { numberReader, type CellReader } from './number-format';
import { castScalar, setField, truncate } from './values';

// The header line must appear within this much text; beyond it the file is not a CSV with a header row.
const HEADER_SEARCH_LIMIT = 1024 * 1024;
// A row this long (in characters) is an unclosed quote running through the file, not data: stop rather than buffer
// the rest of it. It is the size bound of one record in any file (types.ts).
const MAX_ROW_BYTES = MAX_RECORD_CHARACTERS;
// The first rows of a `;` or tab file, read before any is typed, that decide how its numbers are written: at most this
// many rows, and rows of at most about this many characters in all.
const NUMBER_SAMPLE_ROWS = 1000;
const NUMBER_SAMPLE_CHARACTERS = MAX_RECORD_CHARACTERS;

/**
 * CSV with a header row, streamed through csv-parse.
 *
 * - Text: a UTF-8 byte order mark is dropped; UTF-16 with a mark and Windows-1252 exports are decoded too (decode.ts).
 * - Delimiter: `,`, `;` or tab, the one that gives the header and the rows after it an even number of fields
 *   (consistentDelimiter, from the first 64K characters); when none does, whichever the header line holds most often
 *   outside quotes (`,` when none).
 * - Header: the first non-empty line. Names are trimmed; an empty name becomes `column_<n>`. UnparseableFileError when
 *   the file is empty or binary, a name repeats, every name is a number or boolean (a data row, so no header), or the
 *   name column (opts.nameColumn, default `name`) is missing; also when the header has more columns than a record may
 *   hold fields (COLLECTION_DATA_MAX_FIELDS, 1,000) or a name longer than FIELD_NAME_MAX_LENGTH (256): every row
 *   would be refused, so the file is refused before any row is read.
 * - Rows: quoted fields may hold delimiters, line breaks and doubled quotes; a quote inside an unquoted field is kept
 *   as text; empty lines and rows of empty cells are skipped. Every column is kept. Values are trimmed and typed by
 *   castScalar (numbers, booleans; identifiers such as EANs and zero-padded codes stay strings). A `;` or tab file's
 *   numbers may have a decimal comma and thousands separators: the first rows (up to 1,000, or 1 MB) decide each
 *   column's decimal separator (number-format.ts), and a number that could be read two ways stays text. A `,` file's
 *   numbers have a decimal point and no thousands separator. An empty cell is left out of the object rather than
 *   set to null, so "no value" looks the same whether the column is absent or blank; a quoted empty cell (`""`, or
 *   quoted spaces) is the empty string, as its author wrote it. A row of blank cells, quoted or not, is skipped.
 * - A row with more fields than the header (other than trailing empty ones) or fewer, or with text after a closing
 *   quote, is one {ok: false} item naming the line it starts on, with the row's text as raw; the rest of the file
 *   goes on. A quote left open to the end of the file swallows what follows, so that row is reported and the lines
 *   after it are read again. A row (the header included) over 1 MB (a quote left open in a large file) ends the file:
 *   UnparseableFileError.
 */
export const parseCsv: Parser = (input, opts) => csvItems(input, opts, MAX_ROW_BYTES);

/** parseCsv with another row size limit, so tests need not write megabytes to reach it. */
export function csvParserWithRowLimit(maxRowBytes: number): Parser {
  return (input, opts) => csvItems(input, opts, maxRowBytes);
}

// The raw text of a good row is as csv-parse gives it (trimmed only when needed, which is rarely).
// quoted: the fields that are blank but were quoted (`""`), by index; absent when there are none.
type Row = { line: number; raw: string } & ({ fields: string[]; quoted?: Set<number> } | { error: string });

async function* csvItems(input: Readable, opts: ParseOptions, maxRowBytes: number): AsyncGenerator<ParsedItem> {
  const text = decodeText(input, { kind: 'CSV' });
  const { buffered: head, headerLine } = await readHeaderLine(text);
  if (headerLine === undefined) throw new UnparseableFileError('the CSV file is empty');
  const buffered = await readOn(head, head.indexOf(headerLine) + DELIMITER_SAMPLE_CHARACTERS, text);
  const delimiter = consistentDelimiter(buffered.slice(buffered.indexOf(headerLine))) ?? detectDelimiter(headerLine);

  const rows = csvRows(prepend(buffered, text), { delimiter, maxRowBytes }, 0);
  try {
    const first = await rows.next();
    if (first.done) return;
    if ('error' in first.value) throw new UnparseableFileError(`the CSV header row is malformed: ${first.value.error}`);
    const columns = headerColumns(first.value.fields, opts.nameColumn ?? 'name');

    // The rows a `;` or tab file's number format is decided from wait until it is; a failure among them comes after them.
    const sample: Row[] = [];
    let failure: { error: unknown } | undefined;
    let read: CellReader = (value) => castScalar(value);
    if (delimiter !== ',') {
      try {
        let characters = 0;
        while (sample.length < NUMBER_SAMPLE_ROWS && characters < NUMBER_SAMPLE_CHARACTERS) {
          const next = await rows.next();
          if (next.done) break;
          sample.push(next.value);
          characters += next.value.raw.length;
        }
      } catch (error) {
        failure = { error };
      }
      read = numberReader(sample.flatMap((row) => ('fields' in row ? [row.fields] : [])), columns.length);
    }

    let index = 0;
    for (const row of sample) yield itemOf(row, columns, read, index++);
    if (failure) throw failure.error;
    for await (const row of { [Symbol.asyncIterator]: () => rows }) yield itemOf(row, columns, read, index++);
  } finally {
    await rows.return(undefined);
  }
}

function itemOf(row: Row, columns: string[], read: CellReader, index: number): ParsedItem {
  if ('error' in row) return { index, ok: false, error: `line ${row.line}: ${row.error}`, raw: truncate(row.raw) };
  const fields = row.fields;
  if (fields.length < columns.length || fields.slice(columns.length).some((value) => value.trim() !== '')) {
    return {
      index,
      ok: false,
      error: `line ${row.line}: expected ${columns.length} fields, found ${fields.length}`,
      raw: truncate(trimRaw(row.raw)),
    };
  }
  const data: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const value = fields[i]!.trim();
    if (value !== '') setField(data, column, read(value, i));
    else if (row.quoted?.has(i)) setField(data, column, '');
  });
  return { index, ok: true, data };
}

/**
 * Reads until the end of the first non-empty line (outside quotes) and returns everything read so far, which the row
 * parser reads again from the start.
 */
async function readHeaderLine(text: AsyncIterator<string>): Promise<{ buffered: string; headerLine?: string }> {
  let buffered = '';
  let scanned = 0;
  let lineStart = 0;
  let inQuotes = false;
  for (;;) {
    for (let i = scanned; i < buffered.length; i++) {
      const char = buffered[i];
      if (char === '"') inQuotes = !inQuotes;
      else if (char === '\n' && !inQuotes) {
        const line = buffered.slice(lineStart, i);
        if (line.trim() !== '') return { buffered, headerLine: line };
        lineStart = i + 1;
      }
    }
    scanned = buffered.length;
    if (scanned > HEADER_SEARCH_LIMIT) {
      throw new UnparseableFileError('no line break in the first megabyte: not a CSV file with a header row');
    }
    const next = await text.next();
    if (next.done) {
      const line = buffered.slice(lineStart);
      return line.trim() === '' ? { buffered } : { buffered, headerLine: line };
    }
    buffered += next.value;
  }
}

/** `buffered` and what follows it, until it holds `length` characters or the text ends. */
async function readOn(buffered: string, length: number, text: AsyncIterator<string>): Promise<string> {
  let read = buffered;
  while (read.length < length) {
    const next = await text.next();
    if (next.done) break;
    read += next.value;
  }
  return read;
}

/** The delimiter of a header line whose rows do not tell it: the one it holds most often outside quotes. */
function detectDelimiter(line: string): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let inQuotes = false;
  for (const char of line) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best = DELIMITERS[0]!;
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

function headerColumns(fields: string[], nameColumn: string): string[] {
  if (fields.length > COLLECTION_DATA_MAX_FIELDS) {
    throw new UnparseableFileError(`the CSV header has ${fields.length} columns; a record holds at most ${COLLECTION_DATA_MAX_FIELDS} fields`);
  }
  const columns = fields.map((field, i) => field.trim() || `column_${i + 1}`);
  const long = columns.findIndex((column) => column.length > FIELD_NAME_MAX_LENGTH);
  if (long !== -1) {
    throw new UnparseableFileError(
      `the CSV header names column ${long + 1} with more than ${FIELD_NAME_MAX_LENGTH} characters ("${truncate(columns[long]!, 40)}")`,
    );
  }
  const named = fields.map((f) => f.trim()).filter((f) => f !== '');
  if (named.length === 0) throw new UnparseableFileError('the CSV header row is empty');
  if (named.every((f) => typeof castScalar(f) !== 'string')) {
    throw new UnparseableFileError(`the first row holds values, not column names: a CSV header row is required`);
  }
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column)) throw new UnparseableFileError(`the CSV header names the column "${column}" twice`);
    seen.add(column);
  }
  if (!seen.has(nameColumn)) {
    throw new UnparseableFileError(
      `the CSV header has no "${nameColumn}" column (columns: ${truncate(columns.join(', '), 300)})`,
    );
  }
  return columns;
}

async function* prepend(first: string, rest: AsyncIterable<string>): AsyncGenerator<string> {
  if (first) yield first;
  yield* rest;
}

interface Dialect {
  delimiter: string;
  maxRowBytes: number;
}

/**
 * The rows of CSV text in file order, each with the line it starts on (counted after `lineOffset`).
 *
 * Line numbers are counted from each row's raw text, which holds the empty lines skipped before it, rather than taken
 * from csv-parse's `info`, which costs a sixth of the parse time. Rows csv-parse skips for an error arrive through
 * on_skip ahead of the rows parsed before them but not yet read, so they wait, marked with how many rows came before,
 * until those have gone out. With relaxed quotes that is only a quote still open at the end of the file, or a row over
 * the size limit.
 */
async function* csvRows(
  source: Iterable<string> | AsyncIterable<string>,
  dialect: Dialect,
  lineOffset: number,
): AsyncGenerator<Row> {
  const { delimiter, maxRowBytes } = dialect;
  const skipped: { after: number; raw: string; error: string }[] = [];
  let unclosed: string | undefined;
  let fatal: { after: number } | undefined;
  const parser = parse({
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    raw: true,
    max_record_size: maxRowBytes,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined, raw: string | undefined) => {
      if (fatal) return undefined;
      const after = parser.info.records;
      // Thrown from here, an error would make csv-parse drop the rows it has parsed but not yet handed out.
      if (error?.code === 'CSV_MAX_RECORD_SIZE') fatal = { after };
      else if (error?.code === 'CSV_QUOTE_NOT_CLOSED') unclosed = raw ?? '';
      else skipped.push({ after, raw: raw ?? '', error: describe(error) });
      return undefined;
    },
  });
  const guarded = (async function* () {
    for await (const chunk of source) {
      if (fatal) return;
      yield chunk;
    }
  })();
  const feeding = pipeline(Readable.from(guarded, { objectMode: false }), parser);
  // Failures reach the loop below through the parser; this only keeps the promise from going unhandled.
  feeding.catch(() => undefined);

  let linesBefore = lineOffset;
  let rowsRead = 0;
  // The line a raw text starts on, counting the lines it spans as read.
  const lineOf = (raw: string): number => {
    const first = raw.charCodeAt(0);
    const line = linesBefore + 1 + (first === 10 || first === 13 ? lineBreaks(/^[\r\n]*/.exec(raw)![0]) : 0);
    linesBefore += lineBreaks(raw);
    return line;
  };
  function* skippedUpTo(rows: number): Generator<Row> {
    while (skipped.length > 0 && skipped[0]!.after <= rows) {
      const { raw, error } = skipped.shift()!;
      yield { line: lineOf(raw), raw: trimRaw(raw), error };
    }
  }

  for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
    yield* skippedUpTo(rowsRead);
    if (fatal && rowsRead >= fatal.after) break;
    rowsRead++;
    const line = lineOf(raw);
    // A line of delimiters only, as spreadsheets leave below the data, holds no record.
    if (record.every((field) => field.trim() === '')) continue;
    const broken = record.some((field) => field.startsWith('"')) ? strictError(trimRaw(raw), delimiter) : undefined;
    if (broken) yield { line, raw: trimRaw(raw), error: broken };
    else yield { line, raw, fields: record, quoted: quotedBlanks(record, raw, delimiter) };
  }
  if (fatal) {
    yield* skippedUpTo(fatal.after);
    const line = linesBefore + 1;
    throw new UnparseableFileError(`line ${line}: a row runs on for more than ${megabytes(maxRowBytes)} (a quote left open?)`);
  }
  await feeding;
  yield* skippedUpTo(Infinity);
  if (unclosed !== undefined) {
    const line = lineOf(unclosed);
    const text = trimRaw(unclosed);
    yield { line, raw: text, error: 'quote not closed' };
    const rest = /\r\n|\r|\n/.exec(text);
    if (rest) yield* csvRows([text.slice(rest.index + rest[0].length)], dialect, line);
  }
}

/**
 * The blank fields of a row that were quoted, as `""` is written for an empty string, unlike an empty cell. csv-parse
 * tells whether a field was quoted only to a cast function, called for every field of every row, so only a row with a
 * blank field and a quote in its text is read again, with one.
 */
function quotedBlanks(record: string[], raw: string, delimiter: string): Set<number> | undefined {
  if (!raw.includes('"') || !record.some((field) => field.trim() === '')) return undefined;
  const quoted = new Set<number>();
  parseSync(trimRaw(raw), {
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    cast: (value, context) => {
      if (context.quoting && value.trim() === '') quoted.add(context.index);
      return value;
    },
  });
  return quoted.size > 0 ? quoted : undefined;
}

/**
 * relax_quotes keeps a quote inside an unquoted field as text (12" pipe), but it also accepts a quoted field with text
 * after its closing quote, and then a field left open swallows the next rows without a word. Such a field is the only
 * way a value can start with a quote besides an escaped one, so rows with one are checked again without relaxing.
 */
function strictError(raw: string, delimiter: string): string | undefined {
  try {
    parseSync(raw, { delimiter, relax_column_count: true });
    return undefined;
  } catch (error) {
    return describe(error as CsvError);
  }
}

// Raw text of a row: drop the empty lines csv-parse counts into it and the line break that ends it.
function trimRaw(raw: string): string {
  return raw.replace(/^[\r\n]+/, '').replace(/(\r\n|\r|\n)$/, '');
}

// Line breaks in raw text: csv-parse keeps only the first character of a CRLF that ends a record, so a lone CR counts.
function lineBreaks(text: string): number {
  const lineFeeds = occurrences(text, '\n');
  return text.includes('\r') ? lineFeeds + occurrences(text, '\r') - occurrences(text, '\r\n') : lineFeeds;
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let i = text.indexOf(part); i !== -1; i = text.indexOf(part, i + part.length)) count++;
  return count;
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${bytes} bytes`;
}

function describe(error: CsvError | undefined): string {
  switch (error?.code) {
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'text follows the closing quote of a field';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote opens in the middle of a field';
    default:
      // csv-parse's own line numbers count from wherever this parser started, so they are cut off.
      return (error?.message ?? 'malformed row').split(/ at line \d+|\n/)[0]!;
  }
}
