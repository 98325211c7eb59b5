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

/** Operator words a model may put inside an object value, and the key suffix that says the same. */
const OPERATOR_SUFFIXES: Record<string, string> = { min: '_min', gte: '_min', max: '_max', lte: '_max', gt: '_gt', lt: '_lt', in: '_in', eq: '', equals: '' };

/**
 * What to say when a filter's value is not a text, number, boolean or list of them (most often an object such as
 * `{"min": 5}`): the forms that are valid, and the object rewritten in them when its keys are operator words.
 */
export function filterValueProblem(key: string, value: unknown): string {
  const rewritten: string[] = [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [op, operand] of Object.entries(value)) {
      const suffix = OPERATOR_SUFFIXES[op.replace(/^\$/, '').toLowerCase()];
      if (suffix !== undefined) rewritten.push(`"${key}${suffix}": ${JSON.stringify(operand)}`);
    }
  }
  const got = Array.isArray(value) ? 'a list holding something else' : value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return (
    `filter "${key}": a filter value must be text, a number, true/false or a list of them, not ${got}.` +
    (rewritten.length > 0 ? ` Write it as ${rewritten.join(', ')}.` : '') +
    ` Valid forms: "${key}": "steel" (a plain value: exact match), "${key}": "a,b" or ["a", "b"] (a comma list: any of), ` +
    `"${key}_in": "a,b" (any of), "${key}_min": 5 (>=), "${key}_max": 5 (<=), "${key}_gt": 5 (>), "${key}_lt": 5 (<).`
  );
}
