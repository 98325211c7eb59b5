import { prepared, sql, type Kysely } from '@trove/db';
import { COUNTED_EXACTLY, EXACT_TOTAL_MAX, type SearchResult, type SearchScope } from '../port';
import { scopeCondition } from './filters';
import type { Fragment } from './rows';

/**
 * A search's total_estimate in the PostgreSQL engine: exact up to COUNTED_EXACTLY matches, or EXACT_TOTAL_MAX when
 * the search asks for an exact total (counting more reads every match, most of a large collection); above that an
 * estimate, capped at the scope's documents, with total_is_estimate (see estimate()): from how far into the scope
 * the count had to read to find its matches when that says enough, else from a table sample.
 */

/** Matches counted exactly for a search: COUNTED_EXACTLY, or EXACT_TOTAL_MAX when it asks for an exact total. */
export function countLimit(exactTotal: boolean | undefined): number {
  return exactTotal ? EXACT_TOTAL_MAX : COUNTED_EXACTLY;
}

const SAMPLE_PAGES = 500;
/** Matches a sample should hold for an estimate within about 10 % (see estimate()). */
const SAMPLED_MATCHES = 100;
const MAX_SAMPLE_PAGES = 8_000;
/** Scopes whose document counts and layouts are kept (documentsIn(), layout()); the oldest goes first. */
const SCOPE_SIZES_KEPT = 1_000;
/** How long a scope's layout is used (layout()): where its documents lie moves only as the table is rewritten. */
const LAYOUT_KEPT_MS = 5 * 60_000;
/** Buckets of table pages a layout counts documents in. */
const LAYOUT_BUCKETS = 1_024;
/** Scope documents a layout of a large scope is drawn from (a sample of the table's pages); a smaller scope is read whole. */
const LAYOUT_SAMPLED = 20_000;
/** How far a scan's quartiles may stray from a quarter, a half and three quarters of what it covered (see evenly()). */
const QUARTILE_SLACK = 0.06;
/**
 * The least share of the scope a scan must have covered for its matches to stand for the rest (see evenly()): at
 * worst, when every match lay in what it read, the estimate is 1.5× the true count.
 */
const LEAST_COVERED = 2 / 3;

/**
 * What an estimate needs of the scan that counted a search's matches past its limit (see estimate()), summarised in
 * the statement that counted them (scanned()) rather than sent row by row.
 */
export interface Scan {
  /** Whether it read its matches in table order (their pages never went back), as a bitmap heap scan does. */
  ordered: boolean;
  /** The last page it read (the count may have stopped partway through it). */
  last: number;
  /** The matches on the pages before the last. */
  seen: number;
  /** The pages of those at a quarter, a half and three quarters of them in scan order (none when there are none). */
  quartiles: number[];
}

/**
 * The summary of a count's scan (a Scan, as an int array for toScan()) when `count` is past `past`, else null: read
 * from the CTE the matches were read into (aliased `m`, with the row address as `row`), whose order is the scan's,
 * over its first `cap` rows (the count an estimate starts from). A scalar subquery in a CASE runs only when the
 * branch is taken, so a search whose total is exact pays nothing for it.
 */
export function scanned(count: Fragment, past: number, cap = past + 1): Fragment {
  return sql`case when ${count} > ${past} then (
    with s as (select p, lag(p) over () as prev from (select (m.row::text::point)[0]::int as p from m limit ${cap}) x),
      a as (select bool_and(prev is null or p >= prev) as ordered, max(p) as last from s)
    select array[a.ordered::int, a.last, count(s.p)::int]
      || coalesce(percentile_disc(array[0.25, 0.5, 0.75]) within group (order by s.p), '{}'::int[])
    from a left join s on s.p < a.last group by a.ordered, a.last
  ) end`;
}

/** The Scan of a scanned() column. */
export function toScan(summary: number[] | null | undefined): Scan | undefined {
  if (!summary) return undefined;
  const [ordered, last, seen, ...quartiles] = summary.map(Number);
  return { ordered: ordered === 1, last: last!, seen: seen!, quartiles };
}

/** Where a scope's documents lie in the table: how many on the pages before each bucket of `width` pages. */
interface Layout {
  at: number;
  width: number;
  /** Documents (or sampled documents) on the pages before bucket b, for b = 0..buckets; the last is the total. */
  before: number[];
}

export type Total = Pick<SearchResult, 'total_estimate' | 'total_is_estimate'>;

export function exactly(n: number): Total {
  return { total_estimate: n, total_is_estimate: false };
}

export class Totals {
  private pages?: { value: number; at: number };
  private readonly scopeSizes = new Map<string, { value: number; at: number }>();
  private readonly layouts = new Map<string, Promise<Layout>>();

  constructor(private readonly db: Kysely<any>) {}

  /** Exact up to `limit` matches (countLimit()), estimated above (never beyond the documents of `scope`). */
  async count(where: Fragment, scope: SearchScope, limit: number): Promise<Total> {
    const { n, scan } = await this.countUpTo(where, limit);
    return n <= limit ? exactly(n) : this.estimate(where, n, scope, scan);
  }

  /** Matches counted up to `limit` + 1, with the summary of the scan that read them when there were more (scanned()). */
  async countUpTo(where: Fragment, limit: number): Promise<{ n: number; scan?: Scan }> {
    const counted = await sql<{ n: number; scan: number[] | null }>`${prepared}
      with m as materialized (select d.ctid as row from search_engine.documents d where ${where} limit ${limit + 1})
      select c.n, ${scanned(sql`c.n`, limit)} as scan from (select count(*)::int as n from m) c`.execute(this.db);
    return { n: Number(counted.rows[0]!.n), scan: toScan(counted.rows[0]!.scan) };
  }

  /**
   * The matches of a search that counted `atLeast` of them and found more, from the scan that counted them (Scan)
   * when it read them in table order (fromScan()). Matches read in any other order (an index walked in name order)
   * say nothing of the rest, and the whole is estimated from a sample (sampled()). All of it is repeatable, so paging
   * through one result set reports one total. Never below what was already counted, and never above the number of
   * searchable documents in `scope` (the tenant's collection, or the public index), counted exactly: an estimate
   * scaled up can overshoot, and it must never promise more records than could match.
   */
  async estimate(where: Fragment, atLeast: number, scope: SearchScope, scan?: Scan): Promise<Total> {
    const counting = this.documentsIn(scope);
    counting.catch(() => undefined);
    const estimate = scan?.ordered ? await this.fromScan(where, scope, scan, counting) : await this.sampled(where, scope, await counting);
    const inScope = await counting;
    return { total_estimate: Math.min(inScope, Math.max(atLeast, Math.round(estimate))), total_is_estimate: true };
  }

  /**
   * The matches of a scan that read them in table order (a bitmap scan visits pages in order): it found every match
   * on the pages before its last. When they lay evenly there and that was most of the scope (evenly()), the rest of
   * the scope holds them as densely; else what lies beyond is counted (a short range of pages) or estimated from a
   * sample, and added.
   */
  private async fromScan(where: Fragment, scope: SearchScope, { last, seen, quartiles }: Scan, counting: Promise<number>): Promise<number> {
    const layout = await this.layout(scope, counting);
    const before = covered(layout, last - 1);
    if (seen >= 100 && evenly(layout, quartiles, before)) return seen / before;
    const beyond = (await counting) * (1 - before);
    if (beyond < 1) return seen;
    const fromLast = sql`d.ctid >= ${`(${last},0)`}::tid`;
    if ((await this.tablePages()) - last > SAMPLE_PAGES) return seen + (await this.sampled(where, scope, beyond, fromLast));
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from search_engine.documents d where ${where} and ${fromLast}`.execute(this.db);
    return seen + Number(rows[0]!.n);
  }

  /**
   * Matches of `where` among `documents` of the scope (those in `part` of the table), from a repeatable sample of the
   * table's pages: the share of the scope's documents (in `part`) in the sample that match, times `documents`.
   */
  private async sampled(where: Fragment, scope: SearchScope, documents: number, part: Fragment = sql`true`): Promise<number> {
    const pages = await this.tablePages();
    // The share of the scope's documents in the sample that match, times the scope's documents: pages of a fixed
    // sample may hold more or less of one collection than its share of the table, which scaling the matches by the
    // sampled fraction of the table would carry into every estimate.
    const sample = async (percent: number) => {
      const { rows } = await sql<{ n: number; s: number }>`
        select count(*) filter (where ${where})::int as n, count(*)::int as s
        from search_engine.documents d tablesample system (${percent}) repeatable (7)
        where ${scopeCondition(scope)} and ${part}`.execute(this.db);
      return { n: Number(rows[0]!.n), s: Number(rows[0]!.s) };
    };
    let percent = Math.min(100, Math.max(0.01, (100 * SAMPLE_PAGES) / pages));
    let sampled = await sample(percent);
    // Sparse matches: a sample holding few of them says little (with n sampled, the estimate is off by about
    // 1 / sqrt(n)), so it is taken again, larger, to hold about SAMPLED_MATCHES (at most MAX_SAMPLE_PAGES pages).
    if (sampled.n < SAMPLED_MATCHES && percent < 100) {
      const larger = Math.min(100, (100 * MAX_SAMPLE_PAGES) / pages, percent * (SAMPLED_MATCHES / Math.max(sampled.n, 10)));
      if (larger > percent) [percent, sampled] = [larger, await sample(larger)];
    }
    return sampled.s > 0 ? (sampled.n / sampled.s) * documents : (sampled.n * 100) / percent;
  }

  /**
   * Where the scope's documents lie in the table (documents per bucket of pages), kept LAYOUT_KEPT_MS per scope: from
   * a repeatable sample of the table's pages holding about LAYOUT_SAMPLED of them (the share of them before a page
   * is off by well under 1 % then) where that reads far fewer pages than the scope's own rows, else read whole
   * (about 10 ms for 10,000 documents).
   */
  private async layout(scope: SearchScope, counting: Promise<number>): Promise<Layout> {
    const key = scopeKey(scope);
    const kept = this.layouts.get(key);
    if (kept) {
      const layout = await kept.catch(() => undefined);
      if (layout && Date.now() - layout.at < LAYOUT_KEPT_MS) return layout;
      if (this.layouts.get(key) === kept) this.layouts.delete(key);
      else return this.layout(scope, counting);
    }
    const reading = (async (): Promise<Layout> => {
      const [pages, documents] = await Promise.all([this.tablePages(), counting]);
      const width = Math.max(1, Math.ceil(pages / LAYOUT_BUCKETS));
      // Sampled only where that reads far fewer pages than the scope's own rows would be.
      const percent = Math.min(100, (100 * LAYOUT_SAMPLED) / Math.max(1, documents));
      const from = (percent / 100) * pages < documents / 10 ? sql`search_engine.documents d tablesample system (${percent}) repeatable (11)` : sql`search_engine.documents d`;
      const { rows } = await sql<{ b: number; n: number }>`
        select (d.ctid::text::point)[0]::int / ${width} as b, count(*)::int as n from ${from}
        where ${scopeCondition(scope)} group by 1`.execute(this.db);
      const buckets = Math.max(LAYOUT_BUCKETS, ...rows.map((r) => Number(r.b) + 1));
      const before = new Array<number>(buckets + 1).fill(0);
      for (const r of rows) before[Number(r.b) + 1]! += Number(r.n);
      for (let b = 1; b <= buckets; b++) before[b]! += before[b - 1]!;
      return { at: Date.now(), width, before };
    })();
    if (this.layouts.size >= SCOPE_SIZES_KEPT) this.layouts.delete(this.layouts.keys().next().value!);
    this.layouts.set(key, reading);
    return reading;
  }

  /**
   * The searchable documents of a scope, counted at most once a minute per scope (reading a large collection whole on
   * every estimated search cost more than the search): an estimate's cap may lag a minute behind a growing collection.
   */
  private async documentsIn(scope: SearchScope): Promise<number> {
    const key = scopeKey(scope);
    const known = this.scopeSizes.get(key);
    if (known && Date.now() - known.at < 60_000) return known.value;
    const counted = await sql<{ n: number }>`select count(*)::int as n from search_engine.documents d where ${scopeCondition(scope)}`.execute(this.db);
    const value = Number(counted.rows[0]!.n);
    if (this.scopeSizes.size >= SCOPE_SIZES_KEPT) this.scopeSizes.delete(this.scopeSizes.keys().next().value!);
    this.scopeSizes.set(key, { value, at: Date.now() });
    return value;
  }

  /** The documents table's size in pages, read at most once a minute (it only sets samples' percentages). */
  async tablePages(): Promise<number> {
    if (this.pages && Date.now() - this.pages.at < 60_000) return this.pages.value;
    const size = await sql<{ pages: number }>`
      select greatest(1, pg_relation_size('search_engine.documents') / current_setting('block_size')::int)::int as pages`.execute(
      this.db,
    );
    this.pages = { value: Number(size.rows[0]!.pages), at: Date.now() };
    return this.pages.value;
  }
}

function scopeKey(scope: SearchScope): string {
  return JSON.stringify([scope.kind, scope.kind === 'private' ? scope.tenant_id : '', scope.collection ?? '']);
}

/** The share of a layout's documents on the pages up to `page`, counting its bucket's in proportion. */
function covered(layout: Layout, page: number): number {
  const { before, width } = layout;
  const total = before[before.length - 1]!;
  if (total === 0) return 1;
  if (page < 0) return 0;
  const b = Math.floor(page / width);
  if (b >= before.length - 1) return 1;
  const within = before[b + 1]! - before[b]!;
  return (before[b]! + (within * Math.min(1, (page - b * width + 1) / width))) / total;
}

/**
 * Whether the matches a count read in table order (the `quartiles` of their pages, the last `before` of the scope in)
 * stand for the rest of the scope: the count read at least LEAST_COVERED of it, and the matches lay evenly over what
 * it read (their quarters came at about a quarter, a half and three quarters of it). Then the rest holds them as
 * densely, and counting or sampling it (an estimate from a sample costs a keyword search 5-10 ms at 100,000 records
 * when matches are sparse) adds little.
 */
function evenly(layout: Layout, quartiles: number[], before: number): boolean {
  if (before < LEAST_COVERED || quartiles.length < 3) return false;
  return quartiles.every((page, i) => Math.abs(covered(layout, page) / before - (i + 1) / 4) <= QUARTILE_SLACK);
}
