import { sql, type RawBuilder } from 'kysely';
import type { Filter, FilterOp } from '@trove/contracts';

/**
 * `collection_data` filters (the shared syntax, read by parseFilters in @trove/contracts) as one SQL condition over
 * the record row `r`, so a listing filters where the data lives. Every filter must hold. A field names a top-level
 * key, or else a dotted path through nested objects. Equality and any-of match strings and booleans by their text
 * and numbers by value ("10" matches 10, "true" matches true), and match the elements of an array; ranges compare
 * numbers (numeric strings included) with a number bound, and strings with an ISO date bound as text (code point
 * order). A field that is missing or null matches nothing.
 */
export function dataFilterCondition(filters: Filter[]): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(filters.map(condition), sql` and `)})`;
}

const RANGE_SQL: Record<Exclude<FilterOp, 'eq' | 'in'>, string> = { gte: '>=', lte: '<=', gt: '>', lt: '<' };

/** A decimal number, as JavaScript's Number reads a trimmed string (hexadecimal and binary forms aside). */
const NUMERIC_TEXT = '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$';

function condition(filter: Filter): RawBuilder<boolean> {
  const value = valueOf(filter.field);
  if (filter.op === 'eq' || filter.op === 'in') return anyOf(value, Array.isArray(filter.value) ? filter.value : [filter.value]);
  const op = sql.raw(RANGE_SQL[filter.op]);
  const bound = filter.value;
  if (typeof bound === 'number') {
    return sql<boolean>`(case jsonb_typeof(${value})
      when 'number' then (${value})::numeric ${op} ${String(bound)}::numeric
      when 'string' then case when (${value} #>> '{}') ~ ${NUMERIC_TEXT} then (${value} #>> '{}')::numeric ${op} ${String(bound)}::numeric end
    end)`;
  }
  return sql<boolean>`(jsonb_typeof(${value}) = 'string' and (${value} #>> '{}') collate "C" ${op} ${String(bound)}::text collate "C")`;
}

/** The stored value a field names: the top-level key of that name if there is one, else the dotted path's. */
function valueOf(field: string): RawBuilder<unknown> {
  const top = sql`r.collection_data -> ${field}::text`;
  const parts = field.split('.');
  if (parts.length === 1) return top;
  // `->` with a text key reads objects only (an array or a scalar gives null), as the path walk should.
  const path = parts.reduce<RawBuilder<unknown>>((e, part) => sql`(${e} -> ${part}::text)`, sql`r.collection_data`);
  return sql`coalesce(${top}, ${path})`;
}

/** Whether the value, or one element of it when it is an array, equals one of `wanted` (compared as their text). */
function anyOf(value: RawBuilder<unknown>, wanted: Array<string | number | boolean>): RawBuilder<boolean> {
  const texts = wanted.map(String);
  const numbers = texts.filter(isCanonicalNumber);
  return sql<boolean>`exists (
    select 1 from jsonb_array_elements(case jsonb_typeof(${value}) when 'array' then ${value} else jsonb_build_array(${value}) end) as e(x)
    where (jsonb_typeof(e.x) in ('string', 'boolean') and (e.x #>> '{}') = any(${texts}::text[]))
       or (jsonb_typeof(e.x) = 'number' and (e.x)::numeric = any(${numbers}::numeric[]))
  )`;
}

/** Text a stored number can equal: the way JavaScript writes a finite number ("10", not "10.0" or " 10"). */
function isCanonicalNumber(text: string): boolean {
  const n = Number(text);
  return Number.isFinite(n) && String(n) === text;
}
