import { parseFilters, type Filter, type FilterIssue, type FilterValue } from '@trove/contracts';

/**
 * Filters on `collection_data` for trove_list, in the shared filter syntax of search (parseFilters in
 * @trove/contracts); records' listing applies them. A model's values are read leniently first: text is trimmed and
 * empty text dropped, so `" steel "` means `steel` and a filter left with no value is named rather than matching
 * nothing.
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
