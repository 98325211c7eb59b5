import { sql } from 'kysely';
import type { Filter, Scalar, SearchScope, Sort } from '../port';
import type { Fragment } from './rows';

/**
 * What selects and orders documents in every read of the PostgreSQL engine: the scope, the filters and the sort order,
 * as SQL fragments over the documents table (aliased `d`); every user value is a bound parameter.
 */

/** The searchable documents of a scope: one tenant's collection, or the public index (one collection or all). */
export function scopeCondition(scope: SearchScope): Fragment {
  if (scope.kind === 'private') {
    return sql`d.tenant_id = ${scope.tenant_id} and d.collection = ${scope.collection} and d.searchable`;
  }
  return scope.collection === undefined
    ? sql`d.searchable and d.visibility = 'public'`
    : sql`d.searchable and d.visibility = 'public' and d.collection = ${scope.collection}`;
}

/**
 * A scope over a table kept per collection (the vocabulary, field_kinds) aliased `alias`: the tenant's collection, or
 * the collection (or every one) across tenants for the public index, since such tables do not say what is public.
 */
export function collectionCondition(scope: SearchScope, alias: string): Fragment {
  if (scope.kind === 'private') {
    return sql`${sql.ref(`${alias}.tenant_id`)} = ${scope.tenant_id} and ${sql.ref(`${alias}.collection`)} = ${scope.collection}`;
  }
  return scope.collection === undefined ? sql`true` : sql`${sql.ref(`${alias}.collection`)} = ${scope.collection}`;
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
 * Equality as jsonb containment: the field holds one of the forms, or is an array holding one. `indexed`: as `@>`
 * probes of the whole document, which the jsonb_path_ops index serves (filter-only listings); else the field is
 * read once and compared with every form (a scalar contains only itself, an array its elements), several times
 * cheaper a row where the index is not used: text queries test the filters on the text's matches one by one.
 */
function equalsAny(field: string, values: Scalar[], indexed: boolean): Fragment {
  const forms = values.flatMap(equalForms);
  if (forms.length === 0) return sql`false`;
  if (!indexed) return sql`(d.data -> ${field}) @> any(${forms.map((f) => JSON.stringify(f))}::jsonb[])`;
  const probes = forms.flatMap((form) => [{ [field]: form }, { [field]: [form] }]);
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

export function filterCondition(filter: Filter, indexed = true): Fragment {
  if (filter.on === 'record_type') return sql`d.record_type = any(${(Array.isArray(filter.value) ? filter.value : [filter.value]).map(String)}::text[])`;
  switch (filter.op) {
    case 'eq':
    case 'in':
      return equalsAny(filter.field, Array.isArray(filter.value) ? filter.value : [filter.value], indexed);
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt':
      return range(filter.field, filter.op, filter.value);
    default:
      throw new Error(`Unknown filter operator ${String((filter as Filter).op)}`);
  }
}

/**
 * The scope and the filters, over the documents table or document_values (aggregation.ts), which share these columns.
 * `filtersIndexed` false: equality filters in the form tested row by row (equalsAny), for text queries, whose
 * candidates come from the text index, and for document_values, which has no index on the values.
 */
export function whereClause(scope: SearchScope, filters: Filter[], filtersIndexed = true): Fragment {
  return sql.join([scopeCondition(scope), ...filters.map((f) => filterCondition(f, filtersIndexed))], sql` and `);
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
