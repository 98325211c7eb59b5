import { stringify } from 'csv-stringify/sync';
import type { RecordDto } from '@trove/contracts';

/**
 * The two export file formats, as text pieces the export job appends part after part.
 *
 * CSV: a header row, then one row per record. The record's own columns come first, in RECORD_COLUMNS' order; then
 * one column per field of `collection_data`, named `collection_data.<path>`, in code-unit order of the names. A nested
 * object's fields are flattened into dotted paths (`{"size": {"d": 8}}` is `collection_data.size.d`); an array, and an
 * empty object, is one cell holding its JSON text; null and an absent field are an empty cell; a boolean is `true` or
 * `false`; a number as JavaScript writes it. The prefix keeps a field such as `name` apart from the record's own
 * column. A key that itself holds a dot is indistinguishable from nesting (`{"a.b": 1}` and `{"a": {"b": 1}}` share
 * the column `collection_data.a.b`).
 * A text cell (a string value or a header name) that a spreadsheet would read as a formula, one starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return, is written with a leading `'` (OWASP, CSV injection); a number is not text, so
 * -5 stays as it is while the string "-5" gets the quote.
 *
 * JSON: one JSON document, an array of the records in full, each as GET /records/{id} answers it.
 */

/** The record's own CSV columns, in order: every field of the record but the tenant (the caller's) and the version. */
export const RECORD_COLUMNS = [
  'id',
  'name',
  'collection',
  'record_type',
  'status',
  'visibility',
  'description',
  'description_llm',
  'source_type',
  'source_id',
  'source_name',
  'source_url',
  'generation',
  'indexing_status',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof RecordDto)[];

/** The header prefix of a collection_data column. */
export const DATA_PREFIX = 'collection_data.';

/** The first characters with which a spreadsheet reads a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell as written: a leading `'` keeps a spreadsheet from running one that would be a formula. */
function textCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One cell's text. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return textCell(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const isNestedObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0;

/**
 * The flattened fields of a collection_data object: dotted path to cell text. The paths are those the export's first
 * pass gathers in SQL (store.ts, dataPaths): a leaf is any value but a non-empty object.
 */
export function flattenData(data: Record<string, unknown>, into = new Map<string, string>(), prefix = ''): Map<string, string> {
  for (const [key, value] of Object.entries(data)) {
    const path = prefix + key;
    if (isNestedObject(value)) flattenData(value, into, `${path}.`);
    else into.set(path, cell(value));
  }
  return into;
}

/**
 * The CSV header row's text for these collection_data paths (already in their order). A data column's prefix already
 * keeps its name from starting a formula; the rule is applied to every text cell alike all the same.
 */
export function csvHeader(dataPaths: readonly string[]): string {
  return stringify([[...RECORD_COLUMNS, ...dataPaths.map((p) => DATA_PREFIX + p)].map(textCell)]);
}

/** CSV rows of records under a header of `dataPaths`; a field outside them (there is none once they are gathered) is left out. */
export function csvRows(records: readonly RecordDto[], dataPaths: readonly string[]): string {
  if (records.length === 0) return '';
  const rows = records.map((r) => {
    const data = flattenData(r.collection_data);
    const row: string[] = RECORD_COLUMNS.map((c) => cell(r[c]));
    for (const path of dataPaths) row.push(data.get(path) ?? '');
    return row;
  });
  return stringify(rows);
}

/** The JSON array's opening, and the text of records written after `written` others. */
export const JSON_OPEN = '[\n';
export const JSON_CLOSE = '\n]\n';

/**
 * Stands for collection_data while a record is stringified, to be replaced by its stored JSON text: JSON.stringify
 * writes the NUL characters as `\u0000`, which no stored text holds (storable text has no NUL), so it is found once.
 */
const DATA_SLOT = '\u0000collection_data\u0000';
const DATA_SLOT_JSON = JSON.stringify(DATA_SLOT);

/** A record as JSON text, its collection_data given as JSON text already (the export reads it so from PostgreSQL). */
export function recordJson(record: Omit<RecordDto, 'collection_data'>, dataJson: string): string {
  return JSON.stringify({ ...record, collection_data: DATA_SLOT }).replace(DATA_SLOT_JSON, () => dataJson);
}

export function jsonRecords(records: readonly string[], written: number): string {
  if (records.length === 0) return '';
  const body = records.join(',\n');
  return written === 0 ? body : `,\n${body}`;
}
