import type { Filter, FilterOp, Scalar } from '@trove/search-engine';

/** The specification's limit on filters per search. */
export const MAX_FILTERS = 20;

export type FilterValue = Scalar | Scalar[];

/** A filter that cannot be applied, said the way a 422 detail entry says it. */
export interface FilterIssue {
  key: string;
  msg: string;
  type: string;
  input: unknown;
}

const SUFFIXES: Array<[suffix: string, op: FilterOp]> = [
  ['_min', 'gte'],
  ['_max', 'lte'],
  ['_gt', 'gt'],
  ['_lt', 'lt'],
  ['_in', 'in'],
];

const RANGE_OPS = new Set<FilterOp>(['gte', 'lte', 'gt', 'lt']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads the specification's filter object into engine filters. The key's suffix names the operator (`_min` >=,
 * `_max` <=, `_gt` >, `_lt` <, `_in` any of); without one, a comma-separated string or an array means any of, anything
 * else equality. Ranges take numbers (or numeric strings, or ISO dates). A field literally named `size_min` is read
 * as a range on `size`: the specification's suffixes win.
 */
export function parseFilters(filters: Record<string, FilterValue>): { filters: Filter[]; issues: FilterIssue[] } {
  const out: Filter[] = [];
  const issues: FilterIssue[] = [];
  for (const [key, value] of Object.entries(filters)) {
    const [field, op] = operatorOf(key, value);
    if (field === '') {
      issues.push({ key, msg: 'Filter key needs a field name before its operator suffix', type: 'value_error', input: key });
      continue;
    }
    if (op === 'in') {
      const values = (Array.isArray(value) ? value : typeof value === 'string' ? splitList(value) : [value]).filter((v) => v !== '');
      if (values.length === 0) {
        issues.push({ key, msg: 'Filter needs at least one value', type: 'value_error', input: value });
        continue;
      }
      out.push({ field, op, value: values });
      continue;
    }
    if (RANGE_OPS.has(op)) {
      const bound = rangeBound(value);
      if (bound === undefined) {
        issues.push({ key, msg: 'Input should be a valid number or ISO date for a range filter', type: 'float_parsing', input: value });
        continue;
      }
      out.push({ field, op, value: bound });
      continue;
    }
    if (Array.isArray(value)) {
      issues.push({ key, msg: 'Input should be a single value', type: 'value_error', input: value });
      continue;
    }
    out.push({ field, op, value });
  }
  return { filters: out, issues };
}

function operatorOf(key: string, value: FilterValue): [string, FilterOp] {
  for (const [suffix, op] of SUFFIXES) {
    if (key.endsWith(suffix)) return [key.slice(0, -suffix.length), op];
  }
  if (Array.isArray(value) || (typeof value === 'string' && value.includes(','))) return [key, 'in'];
  return [key, 'eq'];
}

function splitList(value: string): string[] {
  return value.split(',').map((v) => v.trim());
}

function rangeBound(value: FilterValue): number | string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  return ISO_DATE.test(trimmed) && !Number.isNaN(Date.parse(trimmed)) ? trimmed : undefined;
}
