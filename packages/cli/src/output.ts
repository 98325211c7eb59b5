import Table from 'cli-table3';

/** Where a command writes: process.stdout and process.stderr, or a test's stand-ins. */
export interface Output {
  write(text: string): unknown;
  /** A terminal: progress bars and prompts only then. */
  isTTY?: boolean;
  columns?: number;
}

/**
 * A table for people (cli-table3): a header row and one row per item, without colours (they would reach a pipe or a
 * file as escape codes). Cells are text; null and undefined show as an empty cell.
 */
export function table(head: string[], rows: unknown[][]): string {
  // compact: a rule under the header only, one line per item.
  const t = new Table({ head, style: { head: [], border: [], compact: true } });
  for (const row of rows) t.push(row.map(cell));
  return `${t.toString()}\n`;
}

/** A value as one table cell. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** `label: value` lines, the values aligned; entries whose value is undefined are left out. */
export function fields(entries: [string, unknown][]): string {
  const shown = entries.filter(([, v]) => v !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${cell(v)}\n`).join('');
}

/** Text cut to `max` characters, on one line. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A byte count for people: 512 B, 1.5 kB, 12.3 MB (powers of 1000). */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** A count with thousands separators: 12,345. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 record`, `2 records`: a count and its noun, with thousands separators. */
export function counted(n: number, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** An instant as `2026-05-01 12:00 UTC`; empty for null. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `--json`: the value as one JSON document (indented) for stdout, for scripts. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
