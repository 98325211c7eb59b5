import type { SearchResultItem } from '@trove/contracts';
import { stringify } from 'yaml';

export type ResultItem = SearchResultItem;

const TRUNCATED = '…';
/** Budget per result: about 120 tokens in compact, about 200 in yaml (a token is about four characters). */
const COMPACT_FIELDS = 6;
const COMPACT_VALUE_CHARS = 40;
const COMPACT_NAME_CHARS = 80;
const YAML_FIELDS = 15;
const YAML_VALUE_CHARS = 80;

/** `format: compact`: a markdown table with columns #, Name, Score, Key Data; an empty one says why when it knows (`hint`). */
export function compactTable(items: ResultItem[], offset: number, total: number, hint?: string): string {
  const lines = ['| # | Name | Score | Key Data |', '|---|---|---|---|'];
  items.forEach((item, i) => {
    const data = flatten(item.collection_data)
      .slice(0, COMPACT_FIELDS)
      .map(([k, v]) => `${k}: ${truncate(v, COMPACT_VALUE_CHARS)}`)
      .join('; ');
    lines.push(`| ${offset + i + 1} | ${cell(truncate(item.name, COMPACT_NAME_CHARS))} | ${item.score.toFixed(2)} | ${cell(data)} |`);
  });
  const shown = items.length === 0 ? (hint ? `No results. ${hint}` : 'No results.') : `Results ${offset + 1}-${offset + items.length} of about ${total}.`;
  return `${lines.join('\n')}\n\n${shown}\n`;
}

/** `format: yaml`: a list of entries with name, score and the flattened data fields; an empty one with `hint` as a comment. */
export function yamlList(items: ResultItem[], hint?: string): string {
  if (items.length === 0) return hint ? `# ${hint}\n[]\n` : '[]\n';
  const entries = items.map((item) => {
    const entry: Record<string, string | number | boolean> = { name: item.name, score: Number(item.score.toFixed(4)), record_id: item.record_id };
    for (const [k, v] of flatten(item.collection_data).slice(0, YAML_FIELDS)) {
      if (!(k in entry)) entry[k] = typeof v === 'string' ? truncate(v, YAML_VALUE_CHARS) : v;
    }
    return entry;
  });
  return stringify(entries, { lineWidth: 0 });
}

/** Nested objects become dotted keys; arrays become comma-joined text; nulls are left out. */
function flatten(data: Record<string, unknown>, prefix = ''): Array<[string, string | number | boolean]> {
  const out: Array<[string, string | number | boolean]> = [];
  for (const [key, value] of Object.entries(data)) {
    const k = prefix ? `${prefix}.${key}` : key;
    if (value === null || value === undefined) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out.push([k, value]);
    else if (Array.isArray(value)) out.push([k, value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')]);
    else if (typeof value === 'object') out.push(...flatten(value as Record<string, unknown>, k));
  }
  return out;
}

function truncate(value: string | number | boolean, max: number): string {
  const text = String(value).replace(/\s+/g, ' ').trim();
  return text.length <= max ? text : `${text.slice(0, max - 1)}${TRUNCATED}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
