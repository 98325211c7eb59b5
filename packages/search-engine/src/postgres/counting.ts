import { prepared, sql, type Kysely } from '@trove/db';
import { COUNTED_EXACTLY, EXACT_TOTAL_MAX, type SearchResult, type SearchScope } from '../port';
import { scopeCondition } from './filters';
import type { Fragment } from './rows';

/**
 * A search's total_estimate in the PostgreSQL engine: exact up to COUNTED_EXACTLY matches, or EXACT_TOTAL_MAX when
 * the search asks for an exact total (counting more reads every match, most of a large collection); above that an
 * estimate from a table sample, capped at the scope's documents, with total_is_estimate (see estimate()).
 */

/** Matches counted exactly for a search: COUNTED_EXACTLY, or EXACT_TOTAL_MAX when it asks for an exact total. */
export function countLimit(exactTotal: boolean | undefined): number {
  return exactTotal ? EXACT_TOTAL_MAX : COUNTED_EXACTLY;
}

const SAMPLE_PAGES = 500;
/** Matches a sample should hold for an estimate within about 10 % (see estimate()). */
const SAMPLED_MATCHES = 100;
const MAX_SAMPLE_PAGES = 8_000;
/** Scopes whose document counts are kept (documentsIn()); the oldest goes first. */
const SCOPE_SIZES_KEPT = 1_000;

export type Total = Pick<SearchResult, 'total_estimate' | 'total_is_estimate'>;

export function exactly(n: number): Total {
  return { total_estimate: n, total_is_estimate: false };
}

export class Totals {
  private pages?: { value: number; at: number };
  private readonly scopeSizes = new Map<string, { value: number; at: number }>();

  constructor(private readonly db: Kysely<any>) {}

  /** Exact up to `limit` matches (countLimit()), estimated above (never beyond the documents of `scope`). */
  async count(where: Fragment, scope: SearchScope, limit: number): Promise<Total> {
    const n = await this.countUpTo(where, limit);
    return n <= limit ? exactly(n) : this.estimate(where, n, scope);
  }

  /** Matches counted up to `limit` + 1. */
  async countUpTo(where: Fragment, limit: number): Promise<number> {
    const counted = await sql<{ n: number }>`${prepared}
      select count(*)::int as n from (select 1 from search_engine.documents d where ${where} limit ${limit + 1}) m`.execute(
      this.db,
    );
    return Number(counted.rows[0]!.n);
  }

  /**
   * Matches counted in a fixed sample of about SAMPLE_PAGES table pages, scaled up: a few milliseconds however many
   * documents match, where counting every one of tens of thousands would read most of the table. The sample is
   * repeatable, so paging through one result set reports one total. Never below what was already counted, and never
   * above the number of searchable documents in `scope` (the tenant's collection, or the public index), counted
   * exactly: a sample scaled up can overshoot, and an estimate must never promise more records than could match.
   */
  async estimate(where: Fragment, atLeast: number, scope: SearchScope): Promise<Total> {
    const pages = await this.tablePages();
    // The share of the scope's documents in the sample that match, times the scope's documents: pages of a fixed
    // sample may hold more or less of one collection than its share of the table, which scaling the matches by the
    // sampled fraction of the table would carry into every estimate.
    const sample = async (percent: number) => {
      const { rows } = await sql<{ n: number; s: number }>`
        select count(*) filter (where ${where})::int as n, count(*)::int as s
        from search_engine.documents d tablesample system (${percent}) repeatable (7)
        where ${scopeCondition(scope)}`.execute(this.db);
      return { n: Number(rows[0]!.n), s: Number(rows[0]!.s) };
    };
    const counting = this.documentsIn(scope);
    counting.catch(() => undefined);
    let percent = Math.min(100, Math.max(0.01, (100 * SAMPLE_PAGES) / pages));
    let sampled = await sample(percent);
    // Sparse matches: a sample holding few of them says little (with n sampled, the estimate is off by about
    // 1 / sqrt(n)), so it is taken again, larger, to hold about SAMPLED_MATCHES (at most MAX_SAMPLE_PAGES pages).
    if (sampled.n < SAMPLED_MATCHES && percent < 100) {
      const larger = Math.min(100, (100 * MAX_SAMPLE_PAGES) / pages, percent * (SAMPLED_MATCHES / Math.max(sampled.n, 10)));
      if (larger > percent) [percent, sampled] = [larger, await sample(larger)];
    }
    const inScope = await counting;
    const share = sampled.s > 0 ? (sampled.n / sampled.s) * inScope : (sampled.n * 100) / percent;
    return { total_estimate: Math.min(inScope, Math.max(atLeast, Math.round(share))), total_is_estimate: true };
  }

  /**
   * The searchable documents of a scope, counted at most once a minute per scope (reading a large collection whole on
   * every estimated search cost more than the search): an estimate's cap may lag a minute behind a growing collection.
   */
  private async documentsIn(scope: SearchScope): Promise<number> {
    const key = JSON.stringify([scope.kind, scope.kind === 'private' ? scope.tenant_id : '', scope.collection ?? '']);
    const known = this.scopeSizes.get(key);
    if (known && Date.now() - known.at < 60_000) return known.value;
    const counted = await sql<{ n: number }>`select count(*)::int as n from search_engine.documents d where ${scopeCondition(scope)}`.execute(this.db);
    const value = Number(counted.rows[0]!.n);
    if (this.scopeSizes.size >= SCOPE_SIZES_KEPT) this.scopeSizes.delete(this.scopeSizes.keys().next().value!);
    this.scopeSizes.set(key, { value, at: Date.now() });
    return value;
  }

  /** The documents table's size in pages, read at most once a minute (it only sets the sample's percentage). */
  private async tablePages(): Promise<number> {
    if (this.pages && Date.now() - this.pages.at < 60_000) return this.pages.value;
    const size = await sql<{ pages: number }>`
      select greatest(1, pg_relation_size('search_engine.documents') / current_setting('block_size')::int)::int as pages`.execute(
      this.db,
    );
    this.pages = { value: Number(size.rows[0]!.pages), at: Date.now() };
    return this.pages.value;
  }
}
