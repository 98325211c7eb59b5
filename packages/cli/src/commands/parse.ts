import { InvalidArgumentError } from 'commander';

/** `--limit 20`: a whole number (the server checks its range and says it). */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** A search filter's value: one string, or the strings given for one key more than once (any of them matches). */
export type FilterValue = string | string[];

/**
 * `--filter key=value`, repeatable: the key (a collection_data field, with an operator suffix such as `_min`) and the
 * value as text; Trove matches text across spellings ("10" finds 10, "true" finds true), and a comma-separated value
 * means any of (docs/behaviour/search.md, "Filters"). A key given twice means any of its values.
 */
export function filter(value: string, previous: Record<string, FilterValue> = {}): Record<string, FilterValue> {
  const eq = value.indexOf('=');
  const key = eq < 0 ? '' : value.slice(0, eq).trim();
  if (key === '') throw new InvalidArgumentError('a filter is key=value (for example material=steel or price_max=10)');
  const v = value.slice(eq + 1);
  const before = previous[key];
  return { ...previous, [key]: before === undefined ? v : [...(Array.isArray(before) ? before : [before]), v] };
}
