import { stringify } from 'yaml';

/** The marker that ends a value cut short, so a model knows there is more (lookup shows the full record). */
export const CUT = '…';

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}${CUT}`;
}

/** Whitespace runs as one space, looking at no more of a long string than can be shown. */
function squashed(text: string, max: number): string {
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const s = head.replace(/\s+/g, ' ').trim();
  return head.length < text.length && s.length < max ? `${s}${CUT}` : truncate(s, max);
}

/** The start of a value's JSON, writing no more than `max` characters however large the value is. */
function jsonHead(value: unknown, max: number): string {
  const out: string[] = [];
  let length = 0;
  const write = (s: string) => {
    out.push(s);
    length += s.length;
  };
  const walk = (v: unknown): void => {
    if (length > max) return;
    if (typeof v === 'string') return write(JSON.stringify(v.length > max ? v.slice(0, max) : v));
    if (v === null || typeof v !== 'object') return write(JSON.stringify(v) ?? 'null');
    if (Array.isArray(v)) {
      write('[');
      for (let i = 0; i < v.length && length <= max; i++) {
        if (i > 0) write(',');
        walk(v[i]);
      }
      return write(']');
    }
    write('{');
    let first = true;
    for (const k in v) {
      if (length > max) break;
      if (!first) write(',');
      first = false;
      write(`${JSON.stringify(k.length > max ? k.slice(0, max) : k)}:`);
      walk((v as Record<string, unknown>)[k]);
    }
    write('}');
  };
  walk(value);
  return truncate(out.join(''), max);
}

/**
 * A value as short inline text: scalars as written, arrays joined by commas, objects as compact JSON. Only as much
 * of a long string, a long array or a large object is looked at as can be shown.
 */
export function inline(value: unknown, max = 80): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return squashed(value, max);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    let length = 0;
    for (const item of value) {
      if (length > max) break;
      const part = inline(item, max);
      parts.push(part);
      length += part.length + 2;
    }
    const joined = parts.join(', ');
    return parts.length < value.length && joined.length < max ? `${joined}${CUT}` : truncate(joined, max);
  }
  if (typeof value === 'object') return jsonHead(value, max);
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

function hasKeys(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/** Nested data as dotted keys (`dims.width`), arrays kept as values; stops after `max` fields. */
export function flatten(data: unknown, max = 1000, prefix = '', out: [string, unknown][] = []): [string, unknown][] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return out;
  for (const k in data) {
    if (out.length >= max) break;
    const v = (data as Record<string, unknown>)[k];
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && hasKeys(v) && prefix.split('.').length < 4) {
      flatten(v, max, key, out);
    } else {
      out.push([key, v]);
    }
  }
  return out;
}

/** Fields counted for keyData's "+N more": beyond this it says "+N or more". */
const KEY_DATA_COUNT = 100;

/** Up to `max` data fields as `key: value` pairs for a table's data column. */
export function keyData(data: unknown, max = 6, width = 40): string {
  const fields = flatten(data, KEY_DATA_COUNT);
  const shown = fields.slice(0, max).map(([k, v]) => `${truncate(k, width)}: ${inline(v, width)}`);
  if (fields.length > max) shown.push(`+${fields.length - max}${fields.length >= KEY_DATA_COUNT ? ' or more' : ' more'}`);
  return shown.join('; ');
}

const MAX_STRING = 1_000;
const MAX_ITEMS = 25;
const MAX_KEYS = 100;
const MAX_KEY = 200;
const MAX_DEPTH = 6;
/** The least room an entry is given: its key and the start of its value. Fewer entries are shown than would get less. */
const MIN_SHARE = 32;

/**
 * Characters (of strings, keys and scalars) one compacted value holds by default: with the per-value limits alone a
 * record of nested objects could still render as megabytes, 100 keys deep in every one of 6 levels.
 */
export const COMPACT_BUDGET = 30_000;

/** What compact left out of a value. */
export interface Cuts {
  fields: number;
  items: number;
  /** Strings cut short, and values below the nesting limit shown as short JSON. */
  values: number;
}

/**
 * A copy of a JSON value small enough for a model's context: long strings, long arrays, objects with many keys and
 * deep nesting are cut, each marked with "…", and the whole holds about `budget` characters. The room is shared out
 * evenly among an object's fields (or an array's items), a field needing less than its share leaving the rest to the
 * others, so that one large field cannot crowd out the small ones after it. Only what can be kept is looked at.
 */
export function compact(value: unknown, budget = COMPACT_BUDGET): { value: unknown; cuts: Cuts } {
  const cuts: Cuts = { fields: 0, items: 0, values: 0 };
  return { value: compactInto(value, 0, budget, cuts), cuts };
}

/** The characters compactInto would keep of a value given unlimited room, counting no further than `cap`. */
function demand(value: unknown, depth: number, cap: number): number {
  if (typeof value === 'string') return Math.min(value.length, MAX_STRING) + 3;
  if (value === null || typeof value !== 'object') return String(value).length + 1;
  if (depth >= MAX_DEPTH) return 200;
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && i < MAX_ITEMS && total <= cap; i++) total += demand(value[i], depth + 1, cap - total);
    return total;
  }
  let n = 0;
  for (const k in value) {
    if (n++ >= MAX_KEYS || total > cap) break;
    total += Math.min(k.length, MAX_KEY) + 2 + demand((value as Record<string, unknown>)[k], depth + 1, cap - total);
  }
  return total;
}

/** Shares of `room` for the demands: as even as possible, none larger than its demand. */
function shareOut(demands: number[], room: number): number[] {
  const order = demands.map((_, i) => i).sort((a, b) => demands[a]! - demands[b]!);
  const shares = new Array<number>(demands.length);
  let left = room;
  order.forEach((i, k) => {
    shares[i] = Math.min(demands[i]!, left / (order.length - k));
    left -= shares[i]!;
  });
  return shares;
}

function compactInto(value: unknown, depth: number, room: number, cuts: Cuts): unknown {
  if (typeof value === 'string') {
    const s = truncate(value, Math.max(20, Math.min(MAX_STRING, Math.floor(room) - 3)));
    if (s.length < value.length) cuts.values++;
    return s;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) {
    cuts.values++;
    return inline(value, Math.max(20, Math.min(200, Math.floor(room))));
  }
  if (Array.isArray(value)) {
    const candidates = value.slice(0, MAX_ITEMS);
    const { shown, shares } = fitEntries(candidates.map((v) => demand(v, depth + 1, room)), room);
    const items = candidates.slice(0, shown).map((v, i) => compactInto(v, depth + 1, shares[i]!, cuts));
    if (items.length < value.length) {
      cuts.items += value.length - items.length;
      items.push(`${CUT} ${value.length - items.length} more items`);
    }
    return items;
  }
  const data = value as Record<string, unknown>;
  const keys: string[] = [];
  for (const k in data) {
    if (keys.length >= MAX_KEYS) break;
    keys.push(k);
  }
  const { shown, shares } = fitEntries(
    keys.map((k) => Math.min(k.length, MAX_KEY) + 2 + demand(data[k], depth + 1, room)),
    room,
  );
  // Built as entries so that a key such as "__proto__" stays an ordinary field.
  const entries: [string, unknown][] = keys.slice(0, shown).map((k, i) => {
    const key = truncate(k, MAX_KEY);
    return [key, compactInto(data[k], depth + 1, shares[i]! - key.length - 2, cuts)];
  });
  const total = keys.length < MAX_KEYS ? keys.length : Object.keys(data).length;
  if (total > entries.length) {
    cuts.fields += total - entries.length;
    entries.push([CUT, `${total - entries.length} more fields`]);
  }
  return Object.fromEntries(entries);
}

/** How many of the entries to show and each one's room: all when they fit, else as many as get MIN_SHARE each. */
function fitEntries(demands: number[], room: number): { shown: number; shares: number[] } {
  const needed = demands.reduce((a, b) => a + b, 0);
  const shown = needed <= room ? demands.length : Math.min(demands.length, Math.max(1, Math.floor(room / MIN_SHARE)));
  return { shown, shares: shareOut(demands.slice(0, shown), room) };
}

export function yaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
