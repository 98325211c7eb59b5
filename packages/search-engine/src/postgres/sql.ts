import { sql, type RawBuilder } from 'kysely';
import { queryWords, STOP_WORDS } from '../classify';
import type { Filter, Scalar, SearchScope, Sort } from '../port';

/** SQL fragments for the PostgreSQL engine's queries; every user value is a bound parameter. */

export type Fragment = RawBuilder<unknown>;

/** The columns a hit is hydrated from, in the row shape `rowToDocument` reads. */
export const DOCUMENT_COLUMNS = sql`d.tenant_id, d.record_id, d.version, d.collection, d.record_type, d.generation,
  d.name, d.description, d.description_llm, d.data, d.source_type, d.status, d.visibility, d.updated_at`;

/** Rank weights for D, C, B, A: collection_data text (C) counts a quarter of a description (B), a tenth of a name. */
export const RANK_WEIGHTS = '{0.05, 0.1, 0.4, 1.0}';

/** The text the tsvectors and tsqueries are built from: lowercase runs of letters and digits, space-separated. */
export function searchText(text: string): string {
  return queryWords(text).join(' ');
}

const MAX_TERMS = 16;
const MAX_TERM_LENGTH = 100;

/**
 * tsquery source text, or undefined when the query has no letters or digits. Lexemes are runs of letters and digits
 * only, quoted, so no user character ever reaches tsquery syntax.
 * keyword: every term, the last as a prefix; exact: every term. any: any term; every: every term; these two drop stop
 * words unless they are all there is (they match nearly everything and carry no ranking signal).
 */
export function tsQueryText(query: string, mode: 'keyword' | 'exact' | 'any' | 'every'): string | undefined {
  let terms = queryWords(query)
    .filter((t) => t.length <= MAX_TERM_LENGTH)
    .slice(0, MAX_TERMS);
  if (mode === 'any' || mode === 'every') {
    const content = terms.filter((t) => !STOP_WORDS.has(t));
    if (content.length > 0) terms = content;
    terms = [...new Set(terms)];
  }
  if (terms.length === 0) return undefined;
  const quoted = terms.map((t) => `'${t}'`);
  if (mode === 'any') return quoted.join(' | ');
  if (mode === 'keyword') quoted[quoted.length - 1] += ':*';
  return quoted.join(' & ');
}

export function scopeCondition(scope: SearchScope): Fragment {
  if (scope.kind === 'private') {
    return sql`d.tenant_id = ${scope.tenant_id} and d.collection = ${scope.collection} and d.searchable`;
  }
  return scope.collection === undefined
    ? sql`d.searchable and d.visibility = 'public'`
    : sql`d.searchable and d.visibility = 'public' and d.collection = ${scope.collection}`;
}

const NUMERIC = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;

/**
 * The stored values an `eq` filter value matches: the value itself and its other spellings, so "10" matches a stored
 * 10 or "10", and "true" a stored true or "true". Numbers compare numerically (10 matches 10.0); strings exactly.
 */
function equalForms(value: Scalar): Scalar[] {
  if (typeof value === 'string') {
    const forms: Scalar[] = [value];
    const trimmed = value.trim();
    if (NUMERIC.test(trimmed) && Number.isFinite(Number(trimmed))) forms.push(Number(trimmed));
    if (value === 'true' || value === 'false') forms.push(value === 'true');
    return forms;
  }
  return [value, String(value)];
}

/**
 * Equality as jsonb containment (served by the jsonb_path_ops index): the field holds one of the forms, or is an
 * array holding one.
 */
function equalsAny(field: string, values: Scalar[]): Fragment {
  const probes = values.flatMap(equalForms).flatMap((form) => [{ [field]: form }, { [field]: [form] }]);
  if (probes.length === 0) return sql`false`;
  return sql`(${sql.join(
    probes.map((p) => sql`d.data @> ${JSON.stringify(p)}::jsonb`),
    sql` or `,
  )})`;
}

const RANGE_OPERATORS = { gte: '>=', lte: '<=', gt: '>', lt: '<' } as const;

/**
 * Range filters compare numbers with numeric stored values only. A non-numeric string bound (an ISO 8601 date)
 * compares as text with stored strings, which orders ISO dates and timestamps correctly when written alike
 * ("2024-05-01" < "2024-05-01T10:00:00Z" < "2024-05-02").
 */
function range(field: string, op: keyof typeof RANGE_OPERATORS, value: Scalar | Scalar[]): Fragment {
  const operator = sql.raw(RANGE_OPERATORS[op]);
  if (typeof value === 'number' || (typeof value === 'string' && NUMERIC.test(value.trim()))) {
    const bound = Number(value);
    if (!Number.isFinite(bound)) return sql`false`;
    return sql`(case when jsonb_typeof(d.data -> ${field}) = 'number' then (d.data ->> ${field})::numeric end) ${operator} ${String(bound)}::numeric`;
  }
  if (typeof value === 'string') {
    return sql`(case when jsonb_typeof(d.data -> ${field}) = 'string' then d.data ->> ${field} end) collate "C" ${operator} ${value}`;
  }
  return sql`false`;
}

export function filterCondition(filter: Filter): Fragment {
  switch (filter.op) {
    case 'eq':
      return equalsAny(filter.field, Array.isArray(filter.value) ? filter.value : [filter.value]);
    case 'in':
      return equalsAny(filter.field, Array.isArray(filter.value) ? filter.value : [filter.value]);
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt':
      return range(filter.field, filter.op, filter.value);
    default:
      throw new Error(`Unknown filter operator ${String((filter as Filter).op)}`);
  }
}

export function whereClause(scope: SearchScope, filters: Filter[]): Fragment {
  return sql.join([scopeCondition(scope), ...filters.map(filterCondition)], sql` and `);
}

/** The sort key: record columns by name (case-insensitive, code point order), else the collection_data value. */
export function sortKey(field: string): Fragment {
  switch (field) {
    case 'name':
      return sql`lower(d.name) collate "C"`;
    case 'updated_at':
      return sql`d.updated_at collate "C"`;
    case 'record_type':
      return sql`d.record_type collate "C"`;
    default:
      // jsonb orders numbers numerically and strings among themselves; a missing field is null, sorted last.
      return sql`d.data -> ${field}`;
  }
}

export function sortOrder(sort: Sort): Fragment {
  return sort.direction === 'desc' ? sql`${sortKey(sort.field)} desc nulls last` : sql`${sortKey(sort.field)} asc nulls last`;
}

/** The default order of filter-only and identifier results. */
export const NAME_ORDER = sql`lower(d.name) collate "C", d.record_id`;
