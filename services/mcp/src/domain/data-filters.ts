/**
 * Filters on `collection_data` with the operators of private search, for trove_list (records' listing has none):
 * a key's suffix names the operator (`_min` >=, `_max` <=, `_gt` >, `_lt` <, `_in` any of); without one, a
 * comma-separated string or an array means any of, else equality. Equality matches across spellings ("10" matches
 * 10, "true" matches true) and array elements; ranges compare numbers (and ISO dates as text).
 */
export type Scalar = string | number | boolean;
export type FilterValue = Scalar | Scalar[];

type Op = 'eq' | 'in' | 'gte' | 'lte' | 'gt' | 'lt';
export interface DataFilter {
  field: string;
  op: Op;
  values: Scalar[];
}

const SUFFIXES: [string, Op][] = [
  ['_min', 'gte'],
  ['_max', 'lte'],
  ['_gt', 'gt'],
  ['_lt', 'lt'],
  ['_in', 'in'],
];

/** The filters, or the problems with them said so that a caller can fix them. */
export function parseDataFilters(raw: Record<string, FilterValue>): { filters: DataFilter[]; problems: string[] } {
  const filters: DataFilter[] = [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const suffix = SUFFIXES.find(([s]) => key.endsWith(s));
    const field = suffix ? key.slice(0, -suffix[0].length) : key;
    let op: Op = suffix ? suffix[1] : Array.isArray(value) || (typeof value === 'string' && value.includes(',')) ? 'in' : 'eq';
    if (field === '') {
      problems.push(`filter "${key}": put a field name before the operator suffix`);
      continue;
    }
    const list = (Array.isArray(value) ? value : typeof value === 'string' && op === 'in' ? value.split(',') : [value])
      .map((v) => (typeof v === 'string' ? v.trim() : v))
      .filter((v) => v !== '');
    if (list.length === 0) {
      problems.push(`filter "${key}": give at least one value`);
      continue;
    }
    if (op === 'eq' || op === 'in') {
      filters.push({ field, op, values: list });
      continue;
    }
    if (list.length !== 1 || rangeValue(list[0]!) === undefined) {
      problems.push(`filter "${key}": a range needs one number (or ISO date), got ${JSON.stringify(value)}`);
      continue;
    }
    op = suffix![1];
    filters.push({ field, op, values: list });
  }
  return { filters, problems };
}

function rangeValue(v: Scalar): number | string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  if (v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return /^\d{4}-\d{2}-\d{2}/.test(v) ? v : undefined;
}

function valueAt(data: unknown, field: string): unknown {
  if (data !== null && typeof data === 'object' && field in (data as object)) return (data as Record<string, unknown>)[field];
  let current: unknown = data;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function sameValue(stored: unknown, wanted: Scalar): boolean {
  if (Array.isArray(stored)) return stored.some((s) => sameValue(s, wanted));
  if (stored === null || stored === undefined || typeof stored === 'object') return false;
  return String(stored) === String(wanted);
}

function compare(stored: unknown, op: Op, bound: number | string): boolean {
  let a: number | string;
  if (typeof bound === 'number') {
    const n = typeof stored === 'number' ? stored : typeof stored === 'string' && stored.trim() !== '' ? Number(stored) : NaN;
    if (!Number.isFinite(n)) return false;
    a = n;
  } else {
    if (typeof stored !== 'string') return false;
    a = stored;
  }
  if (op === 'gte') return a >= bound;
  if (op === 'lte') return a <= bound;
  if (op === 'gt') return a > bound;
  return a < bound;
}

export function matchesData(filters: DataFilter[], data: unknown): boolean {
  return filters.every((f) => {
    const stored = valueAt(data, f.field);
    if (stored === undefined) return false;
    if (f.op === 'eq' || f.op === 'in') return f.values.some((v) => sameValue(stored, v));
    return compare(stored, f.op, rangeValue(f.values[0]!)!);
  });
}
