import { sql } from '@trove/db';
import { fieldsRestricted, type FieldRules } from '../terms';
import type { Fragment } from './rows';
import { termQuery, type QueryTerm } from './tsquery';

/**
 * A collection's field settings in the PostgreSQL engine (searchable_fields, typo_tolerance.disable_on_fields), applied
 * at query time, so a PATCH changes the next search with no reindex. tsv (writes.ts) holds every field: name A,
 * description B, all of collection_data C. The GIN index still finds the candidates by tsv; a document then counts
 * only where the fields allow it: a word as typed in the name or description (tsv's A and B parts), or in a searchable
 * collection_data field; a near word (typo) only where typos are on. A field's words are read from the document's
 * data as writes.ts reads collection_data (string and number values, lowercase runs of letters and digits), for the
 * matches read only. Identifiers stay found by the identifier search, whichever fields hold them.
 */

/** The words of these collection_data values (a jsonb expression), as a tsvector. */
function wordsOf(values: Fragment): Fragment {
  return sql`to_tsvector('simple', regexp_replace(lower(jsonb_path_query_array(${values},
    'strict $.** ? (@.type() == "string" || @.type() == "number")')::text), '[^[:alnum:]]+', ' ', 'g'))`;
}

const pathOf = (field: string) => `{${field.split('.').map((p) => `"${p.replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;

/** The values of these collection_data fields (dotted paths), as one jsonb array. */
function fieldsValues(fields: string[]): Fragment {
  return sql`jsonb_build_array(${sql.join(
    fields.map((f) => sql`d.data #> ${pathOf(f)}::text[]`),
    sql`, `,
  )})`;
}

/** Every collection_data value but these fields'. */
function valuesBut(fields: string[]): Fragment {
  return fields.reduce<Fragment>((data, f) => sql`(${data} #- ${pathOf(f)}::text[])`, sql`coalesce(d.data, '{}'::jsonb)`);
}

/**
 * The words a document's collection_data fields are tested against under the settings (fieldWords(); read once a
 * document by fieldMatches()): `searchable`, the searchable fields' words; `typos`, those where near words count
 * (typos on and the field not typed-only) when that differs from tsv's own C part.
 */
interface FieldWords {
  searchable?: Fragment;
  typos?: Fragment;
}

/** The FieldWords the settings call for (none when tsv's C part serves both). */
function fieldWords(fields: FieldRules): FieldWords {
  const { data } = fields.typedOnly;
  if (fields.searchable === undefined) return data.length > 0 ? { typos: wordsOf(valuesBut(data)) } : {};
  const typoFields = fields.searchable.filter((f) => !data.some((off) => f === off || f.startsWith(`${off}.`)));
  return { searchable: wordsOf(fieldsValues(fields.searchable)), ...(typoFields.length > 0 && { typos: wordsOf(fieldsValues(typoFields)) }) };
}

/** Whether a document holds the term where the collection's fields allow it (`words`: the columns of fieldWords()'s). */
function termHeld(term: QueryTerm, fields: FieldRules, words: FieldWords): Fragment {
  const own = { typos: false, prefix: true };
  const near = { typos: true, prefix: true, own: false };
  const { name, description } = fields.typedOnly;
  const tests: Fragment[] = [sql`d.tsv @@ ${termQuery(term, { ...own, weights: 'AB' })}::tsquery`];
  const typoWeights = `${name ? '' : 'A'}${description ? '' : 'B'}`;
  const typos = term.typos.length > 0;
  if (typos && typoWeights) tests.push(sql`d.tsv @@ ${termQuery(term, { ...near, weights: typoWeights })}::tsquery`);
  if (words.searchable) tests.push(sql`${words.searchable} @@ ${termQuery(term, own)}::tsquery`);
  else tests.push(sql`d.tsv @@ ${termQuery(term, { ...own, weights: 'C' })}::tsquery`);
  if (typos && words.typos) tests.push(sql`${words.typos} @@ ${termQuery(term, near)}::tsquery`);
  else if (typos && !words.searchable) tests.push(sql`d.tsv @@ ${termQuery(term, { ...near, weights: 'C' })}::tsquery`);
  return sql`(${sql.join(tests, sql` or `)})`;
}

/**
 * The condition a full-text match also meets under the collection's field settings (every term held, or any), or
 * undefined when the settings leave every field searched with typos everywhere. The fields' words are read once a
 * document (a subquery kept apart by offset 0, else the planner would read them again for each term).
 */
export function fieldMatches(terms: QueryTerm[], mode: 'every' | 'any', fields: FieldRules): Fragment | undefined {
  if (!fieldsRestricted(fields) || terms.length === 0) return undefined;
  const sources = fieldWords(fields);
  const columns = (Object.keys(sources) as Array<keyof FieldWords>).map((k) => ({ k, expr: sources[k]! }));
  const words = Object.fromEntries(columns.map(({ k }) => [k, sql.raw(`w.${k}`)]));
  const held = sql`(${sql.join(
    terms.map((t) => termHeld(t, fields, words)),
    mode === 'every' ? sql` and ` : sql` or `,
  )})`;
  if (columns.length === 0) return held;
  return sql`coalesce((select ${held} from (select ${sql.join(
    columns.map(({ k, expr }) => sql`${expr} as ${sql.raw(k)}`),
    sql`, `,
  )} offset 0) w), false)`;
}

/** Searchable fields weighed one by one, the rest together below them: reading each costs every scored document. */
const ORDERED_FIELDS = 5;

/**
 * How early in the searchable fields a document holds the terms, 0..1 (a relevance() part when the collection names
 * searchable fields): per term, 1 in the name or description, (n - i) / n in the i-th of n searchable fields (from 0;
 * fields past ORDERED_FIELDS together at the lowest), 0 when not held; averaged over the terms. Each field's words are
 * read once a document.
 */
export function fieldOrder(terms: QueryTerm[], searchable: string[]): Fragment {
  const ordered = searchable.slice(0, ORDERED_FIELDS);
  const rest = searchable.slice(ORDERED_FIELDS);
  const n = ordered.length + (rest.length > 0 ? 1 : 0);
  const groups = [...ordered.map((f) => [f]), ...(rest.length > 0 ? [rest] : [])];
  const own = { typos: true, prefix: true };
  const sources = [
    sql`(ts_filter(d.tsv, '{a,b}'), 1.0::float8)`,
    ...groups.map((g, i) => sql`(${wordsOf(fieldsValues(g))}, ${sql.raw(String((n - i) / n))}::float8)`),
  ];
  return sql`(select coalesce(sum(best), 0)::float8 / ${sql.raw(String(terms.length))} from (
    select max(f.w) as best from unnest(${terms.map((t) => termQuery(t, own))}::tsquery[]) with ordinality t(q, i)
    cross join (values ${sql.join(sources, sql`, `)}) f(v, w)
    where f.v @@ t.q group by t.i) x)`;
}
