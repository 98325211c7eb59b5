import { parse } from 'csv-parse/sync';

/** An export's CSV read back (by csv-parse, independent of the writer) as rows keyed by the header row's names. */
export function csvObjects(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header, ...rows] = parse(text, { relax_column_count: false }) as string[][];
  if (!header) throw new Error('CSV without a header row');
  return { header, rows: rows.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]!]))) };
}
