import { sql, type RawBuilder } from 'kysely';
import { queryWords, STOP_WORDS } from '../classify';
import type { Filter, Scalar, SearchScope, Sort } from '../port';

/** SQL fragments for the PostgreSQL engine's queries; every user value is a bound parameter. */

export type Fragment = RawBuilder<unknown>;

/** The columns a hit is hydrated from, in the row shape `rowToDocument` reads. */
export const DOCUMENT_COLUMNS = sql`d.tenant_id, d.record_id, d.version, d.collection, d.record_type, d.generation,
  d.name, d.description, d.description_llm, d.data, d.source_type, d.status, d.visibility, d.updated_at, d.vocabulary`;

/** Rank weights for D, C, B, A: collection_data text (C) counts a quarter of a description (B), a tenth of a name. */
export const RANK_WEIGHTS = '{0.05, 0.1, 0.4, 1.0}';

/** The text the tsvectors and tsqueries are built from: lowercase runs of letters and digits, space-separated. */
export function searchText(text: string): string {
  return queryWords(text).join(' ');
}

const MAX_TERMS = 16;
const MAX_TERM_LENGTH = 100;

/** One word of a query: matched as a prefix (a keyword query's last word), and through its near words (typos). */
export interface QueryTerm {
  word: string;
  prefix: boolean;
  typos: string[];
}

/**
 * The words a query matches with, or none when it has no letters or digits. keyword: every word, the last as a prefix.
 * any: the distinct words, stop words dropped unless they are all there is (they match nearly everything and carry no
 * ranking signal).
 */
export function queryTerms(query: string, mode: 'keyword' | 'any'): QueryTerm[] {
  let words = queryWords(query)
    .filter((t) => t.length <= MAX_TERM_LENGTH)
    .slice(0, MAX_TERMS);
  if (mode === 'any') {
    const content = words.filter((t) => !STOP_WORDS.has(t));
    words = [...new Set(content.length > 0 ? content : words)];
  }
  return words.map((word, i) => ({ word, prefix: mode === 'keyword' && i === words.length - 1, typos: [] }));
}

/**
 * tsquery text for one term: its word (as a prefix when asked) or any of its near words. Lexemes are runs of letters
 * and digits only, quoted, so no user character ever reaches tsquery syntax.
 */
function termQuery(term: QueryTerm, opts: { typos: boolean; prefix: boolean; name?: boolean }): string {
  // In the name only: the name is tsv's weight-A part (writes.ts), so each lexeme is marked :A.
  const a = opts.name ? 'A' : '';
  const marks = (prefix: boolean) => (prefix ? `:*${a}` : a ? `:${a}` : '');
  const own = `'${term.word}'${marks(term.prefix && opts.prefix)}`;
  if (!opts.typos || term.typos.length === 0) return own;
  return `(${[own, ...term.typos.map((t) => `'${t}'${marks(false)}`)].join(' | ')})`;
}

/** tsquery text matching the terms: `every` one of them or `any`, anywhere in the document or in its name only. */
export function matchText(terms: QueryTerm[], mode: 'every' | 'any', where: 'anywhere' | 'name' = 'anywhere'): string {
  const opts = { typos: true, prefix: true, name: where === 'name' };
  return terms.map((t) => termQuery(t, opts)).join(mode === 'any' ? ' | ' : ' & ');
}

const num = (n: number) => sql.raw(String(n));

/**
 * A cheap ordering of candidates before relevance() scores the best of them: the name tier (2 equal to the query, 1
 * starting with it), then holding every word, then the weighted cover density. `everyHeld`: every candidate already
 * holds every word (a keyword query's matches), so that part is left out rather than tested on each.
 */
export function prior(terms: QueryTerm[], query: string, everyHeld = false): Fragment {
  const key = searchText(query);
  const every = everyHeld ? sql`0.5` : sql`(d.tsv @@ ${matchText(terms, 'every')}::tsquery)::int * 0.5`;
  return sql`((case when d.name_key = ${key} then 2 when starts_with(d.name_key, ${key}) then 1 else 0 end)
    + ${every}
    + ts_rank_cd(${RANK_WEIGHTS}::float4[], d.tsv, ${matchText(terms, 'any')}::tsquery, 32) * 0.5)`;
}

/**
 * The relevance of a matching document, 0..1, from what a reader sees in a result: how many of the query's words
 * it holds (0.35), how many as typed rather than through a typo (0.15), how many in its name (0.15), how many
 * neighbouring query words stand together in it (0.2; a one-word query counts its one word), and the weighted cover
 * density of the matches (ts_rank_cd with RANK_WEIGHTS, 0.15). A name equal to the query (words compared as
 * searchText reads them) lifts the score into 0.9..0.99, a name starting with it into 0.8..0.89; all others stay at
 * or below 0.8, so ordering by score puts exact names first and name prefixes next. 1.0 stays an identifier's.
 */
export function relevance(terms: QueryTerm[], query: string): Fragment {
  const k = terms.length;
  const all = { typos: true, prefix: true };
  const count = (parts: Fragment[]) => sql`(${sql.join(parts, sql` + `)})::float8`;
  const held = count(terms.map((t) => sql`(d.tsv @@ ${termQuery(t, all)}::tsquery)::int`));
  const typed = count(terms.map((t) => sql`(d.tsv @@ ${termQuery(t, { typos: false, prefix: true })}::tsquery)::int`));
  const named = count(terms.map((t) => sql`(d.tsv @@ ${termQuery(t, { ...all, name: true })}::tsquery)::int`));
  const together =
    k === 1
      ? held
      : count(
          terms.slice(1).map((t, i) => sql`(d.tsv @@ ${`${termQuery(terms[i]!, all)} <-> ${termQuery(t, all)}`}::tsquery)::int`),
        );
  const density = sql`ts_rank_cd(${RANK_WEIGHTS}::float4[], d.tsv, ${matchText(terms, 'any')}::tsquery, 32)`;
  const base = sql`(0.35 * ${held} / ${num(k)} + 0.15 * ${typed} / ${num(k)} + 0.15 * ${named} / ${num(k)}
    + 0.2 * ${together} / ${num(Math.max(1, k - 1))} + 0.15 * ${density})`;
  const key = searchText(query);
  return sql`(case when d.name_key = ${key} then 0.9 + 0.09 * ${base}
    when starts_with(d.name_key, ${key}) then 0.8 + 0.09 * ${base} else 0.8 * ${base} end)`;
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
 * The scope and the filters. `filtersIndexed` false: equality filters in the form tested row by row (equalsAny), for
 * text queries, whose candidates come from the text index.
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
