import { stringify } from 'yaml';

/** The marker that ends a value cut short, so a model knows there is more (lookup shows the full record). */
export const CUT = '…';

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${CUT}`;
}

/** A value as short inline text: scalars as written, arrays joined by commas, objects as compact JSON. */
export function inline(value: unknown, max = 80): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return truncate(value.replace(/\s+/g, ' ').trim(), max);
  if (Array.isArray(value)) return truncate(value.map((v) => inline(v, max)).join(', '), max);
  if (typeof value === 'object') return truncate(JSON.stringify(value), max);
  return truncate(String(value), max);
}

/** Text safe inside a markdown table cell. */
export function cell(value: unknown, max = 60): string {
  return inline(value, max).replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

export function table(headers: string[], rows: unknown[][]): string {
  const head = `| ${headers.join(' | ')} |`;
  const rule = `|${headers.map(() => '---').join('|')}|`;
  return [head, rule, ...rows.map((r) => `| ${r.map((v) => cell(v)).join(' | ')} |`)].join('\n');
}

/** Nested data as dotted keys (`dims.width`), arrays kept as values; at most `max` fields. */
export function flatten(data: unknown, max = 1000, prefix = '', out: [string, unknown][] = []): [string, unknown][] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return out;
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (out.length >= max) break;
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && prefix.split('.').length < 4) {
      flatten(v, max, key, out);
    } else {
      out.push([key, v]);
    }
  }
  return out;
}

/** Up to `max` data fields as `key: value` pairs for a table's data column. */
export function keyData(data: unknown, max = 6, width = 40): string {
  const fields = flatten(data);
  const shown = fields.slice(0, max).map(([k, v]) => `${k}: ${inline(v, width)}`);
  if (fields.length > max) shown.push(`+${fields.length - max} more`);
  return shown.join('; ');
}

const MAX_STRING = 1_000;
const MAX_ITEMS = 25;
const MAX_DEPTH = 6;

/** A copy of a JSON value small enough for a model's context: long strings, long arrays and deep nesting are cut. */
export function compact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncate(value, MAX_STRING);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return truncate(JSON.stringify(value), 200);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => compact(v, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`${CUT} ${value.length - MAX_ITEMS} more items`);
    return items;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries.slice(0, 100)) out[k] = compact(v, depth + 1);
  if (entries.length > 100) out[CUT] = `${entries.length - 100} more fields`;
  return out;
}

export function yaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
