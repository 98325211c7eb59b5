/**
 * Reads CSV text back into rows (RFC 4180: quoted fields with doubled quotes, LF or CRLF line ends). Written here
 * rather than taken from csv-parse, which only ingestion depends on, so the records tests read the export with a
 * reader independent of the writer (csv-stringify).
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error('CSV ends inside a quoted field');
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** CSV rows as objects keyed by the header row's names. */
export function csvObjects(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('CSV without a header row');
  return { header, rows: rows.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]!]))) };
}
