import { CompiledQuery, type Kysely } from 'kysely';

/** A value COPY can take: text as it is, null as NULL, a Date as ISO text, an object or array as JSON. */
export type CopyValue = string | number | boolean | null | Date | object;

/**
 * Rows for `COPY table (columns) FROM STDIN`, encoded in the text format. Passed as the one parameter of a query, it
 * tells the pool's client (copyingPool in postgres.ts, PGlitePool in pglite-pool.ts) to run the COPY with this data
 * instead of a statement. Both adapters build the statement from `table` and `columns` themselves, so no SQL text
 * crosses over.
 */
export class CopyRows {
  constructor(
    readonly table: string,
    readonly columns: readonly string[],
    readonly data: string,
    readonly rowCount: number,
  ) {}

  /** The COPY statement reading from `source` (`stdin`, or PGlite's `'/dev/blob'`). */
  statement(source: string): string {
    return `copy ${this.table} (${this.columns.join(', ')}) from ${source}`;
  }
}

// A name is one identifier or schema.identifier of lower-case letters, digits and underscores: table and column
// names are written by our own code, never taken from a request, but a typo should fail here, not in the server.
const NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One field in COPY's text format: backslash, newline, carriage return and tab escaped; NULL as \N. */
function field(value: CopyValue): string {
  if (value === null) return '\\N';
  const text =
    typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text;
}

/** Encodes rows (each a value per column, in column order) as COPY text. */
export function copyRows(table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): CopyRows {
  if (!NAME.test(table) || !columns.every((c) => NAME.test(c) && !c.includes('.'))) throw new Error(`not a plain table or column name: ${table} (${columns.join(', ')})`);
  let data = '';
  let count = 0;
  for (const row of rows) {
    if (row.length !== columns.length) throw new Error(`a row of ${row.length} values for ${columns.length} columns of ${table}`);
    for (let i = 0; i < row.length; i++) data += (i === 0 ? '' : '\t') + field(row[i]!);
    data += '\n';
    count++;
  }
  return new CopyRows(table, columns, data, count);
}

/**
 * Inserts rows with COPY, in the given order, inside the caller's transaction when `db` is one. COPY skips the
 * parsing of a statement and of any JSON parameter, so PostgreSQL stores a row for far less than an
 * `INSERT … SELECT FROM json_…_recordset` costs it (measured in bench/RESULTS.md, "rows written with COPY"). Columns
 * left out take their defaults; a constraint violation fails the COPY as it would fail an INSERT. No ON CONFLICT, no
 * RETURNING.
 */
export async function copyInto(db: Kysely<any>, table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<number> {
  const copy = copyRows(table, columns, rows);
  if (copy.rowCount === 0) return 0;
  // A client that did not know CopyRows would send this COPY with a parameter, which the server refuses.
  await db.executeQuery(CompiledQuery.raw(copy.statement('stdin'), [copy]));
  return copy.rowCount;
}
