import { AGGREGATE_GROUP_LIMIT } from '@trove/contracts';
import { sql, type Kysely } from '@trove/db';
import { COUNTED_EXACTLY, type AggregateQuery, type AggregateResult, type CollectionGroup, type FacetAnswer, type FieldStats, type Filter, type Scalar, type SearchScope } from '../port';
import type { Total, Totals } from './counting';
import { FacetTally, type FacetRows } from './facet-tally';
import { collectionCondition, whereClause } from './filters';
import type { Fragment } from './rows';

/**
 * Aggregation in the PostgreSQL engine: a scope's matching documents counted, grouped by a field and summarised
 * (aggregate()), a search's facets (facets()), and the public index's collections counted across tenants
 * (publicCollections()).
 *
 * Both read document_values (migrations.ts, version 5): each document's scope columns and the collection_data fields
 * worth grouping and filtering, a few hundred bytes a row against the documents table's 1.5 KB, written beside every
 * document (writes.ts). A query that touches a field the scope has ever held as a long string or
 * a long or nested array (field_kinds) reads the documents table instead, since document_values leaves such values
 * out; both answer the same.
 */

/** Where an aggregation reads: the documents in full, or document_values (see tableOf()). */
interface Source {
  full: boolean;
  /** Fields some document of the scope holds as an array (or as a long value, which may be one): groups unnest them. */
  arrays: Set<string>;
}

/** The table a source reads, aliased `d`. */
function tableOf(source: Source): Fragment {
  return source.full ? sql`search_engine.documents d` : sql`search_engine.document_values d`;
}

/** Matches a search's facets are counted exactly up to, as its total is (counting.ts's COUNTED_EXACTLY). */
const FACETS_COUNTED_EXACTLY = COUNTED_EXACTLY;
/** Matches a keyword search asked for facets reads in its own statement (ranking.ts), counted from exactly when they are all. */
export const FACETS_READ = 3_000;
/** Matches a sample for estimated facets should hold: counts off by a few percent for a value of a tenth of them. */
const FACET_SAMPLE = 1_000;
/** Pages of the table a sample for the matches a keyword statement did not read holds (pageSample()): about 15 ms here. */
const FACET_SAMPLE_PAGES = 2_000;

/** Rows of [row address, v0, v1, ...] counted into one tally, each group's rows standing for `weight` documents each. */
function tallied(fields: string[], groups: Array<{ rows: unknown[][]; weight: number }>): FacetTally {
  const tally = new FacetTally(fields);
  for (const { rows, weight } of groups) for (const row of rows) tally.add(row.slice(1), weight);
  return tally;
}

/** Facets counted on a sample, scaled to the total (`scale`: matches per sampled match) and marked estimated. */
function scaledFacets(facets: Record<string, FacetAnswer>, scale: number): Record<string, FacetAnswer> {
  const scaled = (n: number) => Math.max(1, Math.round(n * scale));
  return Object.fromEntries(
    Object.entries(facets).map(([field, f]) => [
      field,
      {
        values: f.values.map((v) => ({ ...v, count: scaled(v.count) })),
        ...(f.stats && { stats: { ...f.stats, count: scaled(f.stats.count) } }),
        estimated: true as const,
      },
    ]),
  );
}

export class Aggregation {
  constructor(
    private readonly db: Kysely<any>,
    private readonly totals: Pick<Totals, 'tablePages'>,
  ) {}

  /**
   * The scope's matches counted, grouped by `group_by` and summarised over the `stats` fields (at most 5). A group
   * field that holds one value a document (never an array in the scope) is grouped in the statement that counts and
   * summarises: the totals are the sums over every group. Otherwise the groups unnest each document's values in a
   * statement of their own, beside the totals'.
   */
  async aggregate(query: AggregateQuery): Promise<AggregateResult> {
    const fields = [...new Set(query.stats ?? [])].slice(0, 5);
    const source = await this.source(query.scope, [
      ...query.filters.filter((f) => f.on !== 'record_type').map((f) => f.field),
      ...(query.group_by ? [query.group_by] : []),
      ...fields,
    ]);
    // document_values has no index on the values: equality is tested row by row there (every row in scope is read).
    const where = whereClause(query.scope, query.filters, source.full);
    // Each stats field's numeric value read once a row (x0, x1, ...): a lateral subquery kept apart (offset 0), else
    // the planner would read it again for each of the four aggregates.
    const from =
      fields.length === 0
        ? tableOf(source)
        : sql`${tableOf(source)} cross join lateral (select ${sql.join(
            fields.map((field, i) => sql`${numberOf(source, field)} as ${sql.raw(`x${i}`)}`),
          )} offset 0) x`;
    const partials = fields.map(
      (_, i) => sql.raw(`count(x${i}) as c${i}, min(x${i}) as mn${i}, max(x${i}) as mx${i}, sum(x${i}) as s${i}`),
    );
    const value = query.group_by ? groupValue(source, query.group_by) : undefined;
    let totals: Record<string, unknown>;
    let groups: Array<{ value: Scalar; count: number }> = [];
    if (value) {
      const overAll = fields.map(
        (_, i) => sql.raw(`sum(c${i}) over () as c${i}, min(mn${i}) over () as mn${i}, max(mx${i}) over () as mx${i}, sum(s${i}) over () as s${i}`),
      );
      const { rows } = await sql<Record<string, unknown> & { value: Scalar | null; n: number }>`
        select ${sql.join([sql`g.value, g.n, sum(g.n) over () as total`, ...overAll])}
        from (select ${sql.join([sql`${value} as value, count(*) as n`, ...partials])}
              from ${from} where ${where} group by 1) g
        order by coalesce(jsonb_typeof(g.value) in ('string', 'number', 'boolean'), false) desc, g.n desc, g.value
        limit ${AGGREGATE_GROUP_LIMIT}`.execute(this.db);
      totals = rows[0] ?? { total: 0 };
      groups = rows.filter((r) => isScalar(r.value)).map((r) => ({ value: r.value as Scalar, count: Number(r.n) }));
    } else {
      const counted = sql<Record<string, unknown>>`
        select ${sql.join([sql`count(*) as total`, ...partials])} from ${from} where ${where}`.execute(this.db);
      const grouped = query.group_by ? this.unnestedGroups(source, where, query.group_by) : Promise.resolve([]);
      [totals, groups] = await Promise.all([counted.then((r) => r.rows[0]!), grouped]);
    }
    const stats: Record<string, FieldStats> = {};
    fields.forEach((field, i) => {
      const count = Number(totals[`c${i}`] ?? 0);
      stats[field] = {
        count,
        min: count ? Number(totals[`mn${i}`]) : null,
        max: count ? Number(totals[`mx${i}`]) : null,
        avg: count ? Number(totals[`s${i}`]) / count : null,
      };
    });
    return { total: Number(totals.total ?? 0), groups, stats };
  }

  /**
   * A search's facets (SearchQuery.facets) over the documents matching `matches` (a search's condition, read on the
   * documents table, since it may test the text), `total` of them:
   * - from the matches a keyword statement read (`prefix`, ranking.ts: at least FACETS_READ), counted here, when they
   *   are all of them;
   * - exact when the total is exact and at most FACETS_COUNTED_EXACTLY (or the search asks for exact_total);
   * - else estimated: the matches the keyword statement read (the first it found, in whatever order its plan reads)
   *   counted as they are, and the others from a sample of FACET_SAMPLE_PAGES of the table's pages (its matches the
   *   statement did not read, each standing for 100 / percent), a stratified estimate no load order can bias;
   *   without a statement's matches (natural language, a sorted search), a sample sized to hold about FACET_SAMPLE
   *   matches, when that reads fewer pages than the matches, scaled to the total.
   */
  async facets(
    scope: SearchScope,
    matches: Fragment,
    total: Total,
    asked: { fields: string[]; limit: number },
    opts: { exactTotal?: boolean; prefix?: FacetRows } = {},
  ): Promise<Record<string, FacetAnswer>> {
    const { fields, limit } = asked;
    const { prefix } = opts;
    if (prefix?.complete) return tallied(fields, [{ rows: prefix.rows, weight: 1 }]).answers(limit, false);
    const exact = (!total.total_is_estimate && total.total_estimate <= FACETS_COUNTED_EXACTLY) || opts.exactTotal === true;
    if (!exact && prefix && prefix.rows.length > 0) {
      const sample = await this.pageSample(matches, fields);
      const read = new Set(prefix.rows.map((r) => r[0]));
      const beyond = sample.rows.filter((r) => !read.has(r[0]));
      return tallied(fields, [
        { rows: prefix.rows, weight: 1 },
        { rows: beyond, weight: 100 / sample.percent },
      ]).answers(limit, sample.percent < 100);
    }
    // A sample of the table's pages holding about FACET_SAMPLE matches, when that reads fewer pages than the matches.
    const percent = Math.min(100, (100 * FACET_SAMPLE) / Math.max(1, total.total_estimate));
    const sampled = !exact && percent < 100 && ((await this.totals.tablePages()) * percent) / 100 < total.total_estimate / 2;
    const { arrays } = await this.source(scope, fields);
    const from = sampled ? sql`search_engine.documents d tablesample system (${percent}) repeatable (17)` : sql`search_engine.documents d`;
    const { facets, read } = await this.facetsRead(from, matches, fields, arrays, limit);
    return sampled && read > 0 ? scaledFacets(facets, total.total_estimate / read) : facets;
  }

  /** The matches on FACET_SAMPLE_PAGES of the table's pages (a repeatable sample), each as [row address, v0, v1, ...]. */
  private async pageSample(matches: Fragment, fields: string[]): Promise<{ percent: number; rows: unknown[][] }> {
    const percent = Math.min(100, (100 * FACET_SAMPLE_PAGES) / (await this.totals.tablePages()));
    const { rows } = await sql<{ r: unknown[] }>`
      select jsonb_build_array(d.ctid::text${sql.join(
        fields.map((f) => sql`, ${facetValue(f)}`),
        sql``,
      )}) as r
      from search_engine.documents d tablesample system (${percent}) repeatable (17) where ${matches}`.execute(this.db);
    return { percent, rows: rows.map((row) => row.r) };
  }

  /**
   * For each field, its `limit` most frequent values among the documents of `from` matching `matches`, and numeric
   * stats where it holds numbers, grouped and summarised as aggregate() does (a document counts once per distinct
   * value, an array once per distinct element: only fields some document of the scope holds as an array, `arrays`,
   * are unnested; ties by value; stats over the documents whose value is a number); and how many documents were read.
   * One statement reads the matches once for every field.
   */
  private async facetsRead(
    from: Fragment,
    matches: Fragment,
    fields: string[],
    arrays: Set<string>,
    limit: number,
  ): Promise<{ facets: Record<string, FacetAnswer>; read: number }> {
    const values = fields.map((field, i) => sql`${facetValue(field)} as ${sql.raw(`v${i}`)}`);
    const pairs = fields.map((field, i) => sql.raw(`(${i}, m.v${i}, ${arrays.has(field)})`));
    const { rows } = await sql<{ i: number | null; value: Scalar | null; n: number; mn: number | null; mx: number | null; sm: number | null }>`
      with m as materialized (select ${sql.join(values)} from ${from} where ${matches}),
      v as (select f.i, f.value, f.arr from m cross join lateral (values ${sql.join(pairs)}) f(i, value, arr)),
      e as (
        select v.i, x.value from v cross join lateral (select distinct x.value from jsonb_array_elements(
          case when jsonb_typeof(v.value) = 'array' then v.value else jsonb_build_array(v.value) end) x(value)) x
        where v.arr
        union all select v.i, v.value from v where not v.arr),
      g as (
        select e.i, e.value, count(*)::int as n, row_number() over (partition by e.i order by count(*) desc, e.value) as r
        from e where jsonb_typeof(e.value) in ('string', 'number', 'boolean') group by e.i, e.value),
      s as (
        select v.i, count(x.n)::int as n, min(x.n) as mn, max(x.n) as mx, sum(x.n) as sm
        from v cross join lateral (select case when jsonb_typeof(v.value) = 'number' then (v.value #>> '{}')::float8 end as n) x
        group by v.i)
      select * from (
        select g.i, g.value, g.n, null::float8 as mn, null::float8 as mx, null::float8 as sm from g where g.r <= ${limit}
        union all select s.i, null, s.n, s.mn, s.mx, s.sm from s where s.n > 0
        union all select null, null, (select count(*) from m)::int, null, null, null
      ) f order by f.i, f.value is null, f.n desc, f.value`.execute(this.db);
    const facets: Record<string, FacetAnswer> = Object.fromEntries(fields.map((field) => [field, { values: [] }]));
    let read = 0;
    for (const row of rows) {
      const n = Number(row.n);
      if (row.i === null) {
        read = n;
        continue;
      }
      const facet = facets[fields[Number(row.i)]!]!;
      if (row.value !== null) facet.values.push({ value: row.value, count: n });
      else facet.stats = { count: n, min: Number(row.mn), max: Number(row.mx), avg: Number(row.sm) / n };
    }
    return { facets, read };
  }

  /** Reads document_values unless one of `fields` has been long somewhere in the scope; which fields were arrays. */
  private async source(scope: SearchScope, fields: string[]): Promise<Source> {
    const names = [...new Set(fields)];
    if (names.length === 0) return { full: false, arrays: new Set() };
    const { rows } = await sql<{ field: string; kind: string }>`
      select distinct k.field, k.kind from search_engine.field_kinds k
      where ${collectionCondition(scope, 'k')} and k.field = any(${names}::text[])`.execute(this.db);
    const full = rows.some((r) => r.kind === 'long');
    return { full, arrays: new Set(rows.map((r) => r.field)) };
  }

  /**
   * The AGGREGATE_GROUP_LIMIT most frequent values of an array field among the matches, ties by value: a document
   * counts once per distinct value, an array once per distinct element.
   */
  private async unnestedGroups(source: Source, where: Fragment, field: string): Promise<Array<{ value: Scalar; count: number }>> {
    const result = await sql<{ value: Scalar; count: number }>`
      select v.value, count(*)::int as count
      from ${tableOf(source)} cross join lateral (select distinct e.value from jsonb_array_elements(
        case when jsonb_typeof(d.data -> ${field}) = 'array' then d.data -> ${field}
        else jsonb_build_array(d.data -> ${field}) end) e(value)) v
      where ${where} and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
      group by v.value order by count(*) desc, v.value limit ${AGGREGATE_GROUP_LIMIT}`.execute(this.db);
    return result.rows.map((r) => ({ value: r.value, count: Number(r.count) }));
  }

  /** The public index's largest collections among the documents matching `filters`, with their record types. */
  async publicCollections(filters: Filter[]): Promise<CollectionGroup[]> {
    const source = await this.source({ kind: 'public' }, filters.filter((f) => f.on !== 'record_type').map((f) => f.field));
    const where = whereClause({ kind: 'public' }, filters, source.full);
    const result = await sql<{ collection: string; total: number; record_type: string; n: number }>`
      with pairs as (
        select d.collection, d.record_type, count(*)::int as n
        from ${tableOf(source)} where ${where} group by d.collection, d.record_type),
      top as (
        select collection, sum(n)::int as total from pairs group by collection
        order by total desc, collection collate "C" limit ${AGGREGATE_GROUP_LIMIT})
      select t.collection, t.total, p.record_type, p.n
      from top t join pairs p on p.collection = t.collection
      order by t.total desc, t.collection collate "C", p.n desc, p.record_type collate "C"`.execute(this.db);
    const groups: CollectionGroup[] = [];
    for (const row of result.rows) {
      let group = groups.at(-1);
      if (group?.collection !== row.collection) {
        group = { collection: row.collection, count: Number(row.total), record_types: [] };
        groups.push(group);
      }
      if (group.record_types.length < AGGREGATE_GROUP_LIMIT) group.record_types.push({ value: row.record_type, count: Number(row.n) });
    }
    return groups;
  }
}

/** A stats field's value as a number, or null where it holds anything else (document_values' nums holds numbers only). */
function numberOf(source: Source, field: string): Fragment {
  return source.full
    ? sql`case when jsonb_typeof(d.data -> ${field}) = 'number' then (d.data ->> ${field})::float8 end`
    : sql`(d.nums ->> ${field})::float8`;
}

/** A facet field's value a document: a collection_data field's, or record_type's or collection's as jsonb. */
export function facetValue(field: string): Fragment {
  return field === 'record_type' || field === 'collection' ? sql`to_jsonb(${sql.ref(`d.${field}`)})` : sql`d.data -> ${field}`;
}

/** The group field's one value a document, or undefined for a field some document of the scope holds as an array. */
function groupValue(source: Source, field: string): Fragment | undefined {
  if (field === 'record_type' || field === 'collection') return sql`to_jsonb(${sql.ref(`d.${field}`)})`;
  return source.arrays.has(field) ? undefined : sql`d.data -> ${field}`;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
