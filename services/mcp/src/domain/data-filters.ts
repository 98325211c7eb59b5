import { parseFilters, type Filter, type FilterIssue, type FilterOp, type FilterValue, type Scalar } from '@trove/contracts';

/**
 * Filters on `collection_data` for trove_list (records' listing has none), in the shared filter syntax of search
 * (parseFilters in @trove/contracts), matched here. A model's values are read leniently first: text is trimmed and
 * empty text dropped, so `" steel "` means `steel` and a filter left with no value is named rather than matching
 * nothing. Equality matches across spellings ("10" matches 10, "true" matches true) and array elements; ranges
 * compare numbers (and ISO dates as text).
 */
export function parseDataFilters(raw: Record<string, FilterValue>): { filters: Filter[]; problems: string[] } {
  const tidy: Record<string, FilterValue> = {};
  const emptied = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    const values = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
    if (values.length === 0) emptied.add(key);
    tidy[key] = Array.isArray(value) || values.length !== 1 ? values : values[0]!;
  }
  const { filters, issues } = parseFilters(tidy);
  return { filters, problems: issues.map((issue) => problemOf(issue, raw[issue.key]!, emptied.has(issue.key))) };
}

/** An issue said so that the model can fix its call. */
function problemOf(issue: FilterIssue, value: FilterValue, empty: boolean): string {
  if (issue.problem === 'no_field') return `filter "${issue.key}": put a field name before the operator suffix`;
  if (issue.problem === 'no_value' || empty) return `filter "${issue.key}": give at least one value`;
  return `filter "${issue.key}": a range needs one number (or ISO date), got ${JSON.stringify(value)}`;
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

function compare(stored: unknown, op: FilterOp, bound: number | string): boolean {
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

export function matchesData(filters: Filter[], data: unknown): boolean {
  return filters.every((f) => {
    const stored = valueAt(data, f.field);
    if (stored === undefined) return false;
    if (f.op === 'eq' || f.op === 'in') return (Array.isArray(f.value) ? f.value : [f.value]).some((v) => sameValue(stored, v));
    return compare(stored, f.op, f.value as number | string);
  });
}
