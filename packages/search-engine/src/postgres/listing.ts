import { prepared, sql, type Kysely } from '@trove/db';
import type { SearchQuery } from '../port';
import { countLimit, exactly, scanned, toScan, type Totals } from './counting';
import { NAME_ORDER, sortOrder, whereClause } from './filters';
import { DOCUMENT_COLUMNS, toHit, type DocumentRow, type Found, type Fragment, type Page } from './rows';

/**
 * Results listed in one order rather than ranked: a query of filters only (every searchable document matching them,
 * by name, then record_id, as in Elasticsearch, or by the sort asked for), and identifier matches (identifiers.ts).
 */

/** Listed matches up to this many are collected and sorted whole (see listed()). */
const SORTED_WHOLE = 1_000;

export class Listing {
  constructor(
    private readonly db: Kysely<any>,
    private readonly totals: Totals,
  ) {}

  /** A query without text: its filters' matches, scored 1.0, in the sort asked for, then by name. */
  async filtered(query: SearchQuery, page: Page): Promise<Found> {
    const order = query.sort ? sql`${sortOrder(query.sort)}, ${NAME_ORDER}` : NAME_ORDER;
    return this.listed(whereClause(query.scope, query.filters), order, page, query);
  }

  /**
   * Every match in one order, scored 1.0 (or by `score`): filters only, or identifiers. Counting comes first: up to
   * SORTED_WHOLE matches are collected and sorted whole, since walking an order index while filtering for a few
   * matches strung out along it can read most of the collection; more matches than that are dense enough for the walk.
   */
  async listed(
    where: Fragment,
    order: Fragment,
    page: Page,
    { scope, exact_total }: Pick<SearchQuery, 'scope' | 'exact_total'>,
    score: Fragment = sql`1.0`,
  ): Promise<Found> {
    // One statement for the common case: up to SORTED_WHOLE matches, counted, sorted whole and paged.
    const whole = await sql<Partial<DocumentRow> & { score: number | null; matched: number; scan: number[] | null }>`${prepared}
      with m as materialized (select d.ctid as row from search_engine.documents d where ${where} limit ${SORTED_WHOLE + 1})
      select c.matched, ${scanned(sql`c.matched`, SORTED_WHOLE)} as scan, p.* from (select count(*)::int as matched from m) c
      left join lateral (
        select ${DOCUMENT_COLUMNS}, ${score} as score from m join search_engine.documents d on d.ctid = m.row
        where c.matched <= ${SORTED_WHOLE} order by ${order} limit ${page.limit} offset ${page.offset}
      ) p on true`.execute(this.db);
    const counted = Number(whole.rows[0]?.matched ?? 0);
    if (counted <= SORTED_WHOLE) {
      const hits = whole.rows.filter((r) => r.record_id != null).map((r) => toHit(r as DocumentRow & { score: number }));
      return { hits, ...exactly(counted), fuzzy: false, matches: where };
    }
    // More than SORTED_WHOLE matches: more than COUNTED_EXACTLY too, so the total is an estimate unless the search
    // asks for an exact one (counted again, further).
    const limit = countLimit(exact_total);
    const [found, total] = await Promise.all([
      sql<DocumentRow & { score: number }>`${prepared}
        select ${DOCUMENT_COLUMNS}, ${score} as score from search_engine.documents d where ${where}
        order by ${order} limit ${page.limit} offset ${page.offset}`.execute(this.db),
      limit > SORTED_WHOLE ? this.totals.count(where, scope, limit) : this.totals.estimate(where, counted, scope, toScan(whole.rows[0]?.scan)),
    ]);
    return { hits: found.rows.map(toHit), ...total, fuzzy: false, matches: where };
  }
}
