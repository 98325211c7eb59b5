import { LRUCache } from 'lru-cache';
import { prepared, sql, type Kysely } from '@trove/db';
import { type SearchHit, type SearchQuery, type SearchScope } from '../port';
import { countLimit, exactly, scanned, toScan, type Scan, type Total, type Totals } from './counting';
import { sortOrder, whereClause } from './filters';
import { NO_RULES, type FieldRules } from '../terms';
import { FACETS_READ, facetValue } from './aggregation';
import type { FacetRows } from './facet-tally';
import { fieldMatches, fieldOrder } from './fields';
import { matchText, searchText, termQuery, type QueryTerm } from './tsquery';
import { DOCUMENT_COLUMNS, toHit, type DocumentRow, type Found, type Fragment, type Page } from './rows';

/**
 * Full-text search in the PostgreSQL engine: which documents a keyword or natural-language query matches, and how they
 * rank. Matching reads the weighted tsvector that writes.ts builds (name and identifiers A, description B,
 * collection_data text C; the generated description is not indexed); relevance() scores every hit within 0..1 (an
 * identifier match, identifiers.ts, is 1.0). Query words come here already expanded to their near words from the
 * collection's vocabulary (typos.ts). To keep latency flat on large collections, a text query ranks a bounded
 * candidate set rather than every match: the first CANDIDATES documents matching anywhere, plus, when those hold too
 * few name matches, the first CANDIDATES matching in the name, the documents whose name is the query (and, for natural
 * language, the first CANDIDATES holding every term). A keyword query whose exact words already match CANDIDATES
 * documents takes its candidates from those, since matching the last word as a prefix costs GIN several times more.
 * When a query matches more than that, the best-ranked page comes from the candidates, not necessarily from all
 * matches; an explicit sort always considers every match.
 */

/** Candidates ranked per source when no explicit sort is asked for (see above). */
export const CANDIDATES = 1_000;
/** Candidates of a keyword query given the prior (keywordMatches()), the first by the cheap order. */
const KEYWORD_CANDIDATES = 300;
/** Candidates scored in full beyond the page's offset, the best by the prior (see candidates()). */
const POOL = 100;

/** Rank weights for D, C, B, A: collection_data text (C) counts a quarter of a description (B), a tenth of a name. */
export const RANK_WEIGHTS = '{0.05, 0.1, 0.4, 1.0}';

const num = (n: number) => sql.raw(String(n));

/** BM25's term-frequency saturation and length normalisation, Lucene's and Elasticsearch's defaults. */
const K1 = 1.2;
const B = 0.75;
/** What an occurrence of a word counts for by where it stands (tsv's weights): name A, description B, collection_data C. */
const OCCURRENCE = sql.raw(`(case w when 'A' then 1.5 when 'B' then 1 when 'C' then 0.5 else 0.2 end)`);
/**
 * Documents a term's rarity is counted over, at most: a word held by this many is common, and its weight no longer
 * falls (counting further would read every match of a common word). The collection's size is counted up to ten times
 * that, so rarity still tells a rare word from a common one in a large collection.
 */
const DF_CAP = 1_000;
/** Documents the average length is taken over (the scope's first, in index order). */
const LENGTH_SAMPLE = 1_000;

/**
 * How rare each term is in the scope (BM25's idf, from the documents holding it as typed, counted up to DF_CAP, among
 * the scope's, counted up to 10 × DF_CAP) and the scope's average document length in distinct words (tsv's lexemes):
 * what a natural-language query's ranking weighs its terms and lengths by (relevance(); TermCounts counts them).
 */
export interface TermStats {
  idf: number[];
  avgdl: number;
  /** The documents holding each term, as counted (at most DF_CAP). */
  df: number[];
}

/** How long a scope's size, average length and terms' counts are reused: rarity moves slowly as a collection grows. */
const STATS_TTL_MS = 60_000;

/**
 * Term statistics (TermStats) for a scope, counted by one statement and kept for STATS_TTL_MS: a question's rare words
 * are usually new, its common ones usually counted already.
 */
export class TermCounts {
  private readonly cache = new LRUCache<string, number>({ max: 50_000, ttl: STATS_TTL_MS });

  constructor(private readonly db: Kysely<any>) {}

  async stats(scope: SearchScope, terms: QueryTerm[]): Promise<TermStats> {
    const prefix = JSON.stringify(scope);
    const typed = { typos: false, prefix: true };
    const keys = { n: `${prefix}\u0000n`, avgdl: `${prefix}\u0000avgdl`, terms: terms.map((t) => `${prefix}\u0000${termQuery(t, typed)}`) };
    const missing = [keys.n, keys.avgdl, ...keys.terms].filter((k) => !this.cache.has(k));
    if (missing.length > 0) {
      const inScope = whereClause(scope, [], false);
      const counted = terms.map((t, i) => ({ t, key: keys.terms[i]! })).filter(({ key }) => !this.cache.has(key));
      const df = counted.map(
        ({ t }) => sql`(select count(*)::int from (select 1 from search_engine.documents d where ${inScope} and d.tsv @@ ${termQuery(t, typed)}::tsquery limit ${num(DF_CAP)}) x)`,
      );
      const sized = !this.cache.has(keys.n) || !this.cache.has(keys.avgdl);
      const { rows } = await sql<{ n: number | null; avgdl: number | null; df: number[] }>`${prepared}
        select ${sized ? sql`(select count(*)::int from (select 1 from search_engine.documents d where ${inScope} limit ${num(10 * DF_CAP)}) x)` : sql`null::int`} as n,
          ${sized ? sql`(select avg(length(x.tsv))::float8 from (select d.tsv from search_engine.documents d where ${inScope} limit ${num(LENGTH_SAMPLE)}) x)` : sql`null::float8`} as avgdl,
          array[${df.length > 0 ? sql.join(df, sql`, `) : sql``}]::int[] as df`.execute(this.db);
      const row = rows[0]!;
      if (sized) {
        this.cache.set(keys.n, Number(row.n ?? 0));
        this.cache.set(keys.avgdl, Math.max(1, Number(row.avgdl ?? 1)));
      }
      counted.forEach(({ key }, i) => this.cache.set(key, Number(row.df[i] ?? 0)));
    }
    const size = this.cache.get(keys.n) ?? 0;
    const df = keys.terms.map((k) => this.cache.get(k) ?? 0);
    return {
      df,
      idf: df.map((n) => Math.log(1 + (Math.max(size, n) - n + 0.5) / (n + 0.5))),
      avgdl: this.cache.get(keys.avgdl) ?? 1,
    };
  }
}

/**
 * The words a term is counted by in BM25: its own (or its input's) and its one-word synonyms in full, its near words
 * (typos) at TYPO_SHARE of an occurrence, so that a word as typed counts more than a near one.
 */
function lexemesOf(term: QueryTerm): { own: string[]; near: string[] } {
  const own = [...new Set([...(term.parts ?? [term.word]), ...(term.synonyms ?? []).filter((w) => w.length === 1).map((w) => w[0]!)])];
  return { own, near: term.typos.filter((t) => !own.includes(t)) };
}

const TYPO_SHARE = 0.3;

/**
 * BM25 of a document (`d`) for the terms, 0..1 (divided by the most it could reach: every term's idf × (K1 + 1)):
 * each term's occurrences weighted by where they stand (OCCURRENCE), saturated by K1, the document's length (its
 * distinct words) normalised against the scope's average by B, weighted by the term's rarity.
 */
function bm25(terms: QueryTerm[], stats: TermStats): Fragment {
  const lexemes = terms.map(lexemesOf);
  const norm = sql`(${num(1 - B)} + ${num(B)} * length(d.tsv) / ${num(stats.avgdl)}::float8)`;
  const tf = lexemes.map(
    ({ own, near }, i) =>
      sql`(coalesce(sum(${OCCURRENCE}) filter (where u.lexeme = any(${own}::text[])), 0)
        + ${num(TYPO_SHARE)} * coalesce(sum(${OCCURRENCE}) filter (where u.lexeme = any(${near}::text[])), 0))::float8 as tf${num(i)}`,
  );
  const parts = lexemes.map((_, i) => sql`${num(stats.idf[i]!)} * x.tf${num(i)} * ${num(K1 + 1)} / (x.tf${num(i)} + ${num(K1)} * ${norm})`);
  const most = stats.idf.reduce((a, w) => a + w, 0) * (K1 + 1);
  return sql`(select (${sql.join(parts, sql` + `)}) / ${num(most || 1)} from (
    select ${sql.join(tf, sql`, `)} from unnest(d.tsv) u cross join lateral unnest(u.weights) w
    where u.lexeme = any(${[...new Set(lexemes.flatMap((l) => [...l.own, ...l.near]))]}::text[])) x)`;
}

/** The share of the terms' rarity (idf) a document holds, 0..1, anywhere or (name) in its name. */
function heldWeight(terms: QueryTerm[], stats: TermStats, name = false): Fragment {
  const total = stats.idf.reduce((a, w) => a + w, 0) || 1;
  const opts = { typos: true, prefix: true, name };
  return sql`((${sql.join(
    terms.map((t, i) => sql`${num(stats.idf[i]!)} * (d.tsv @@ ${termQuery(t, opts)}::tsquery)::int`),
    sql` + `,
  )}) / ${num(total)})`;
}

/**
 * A cheap ordering of candidates before relevance() scores the best of them: the name tier (2 equal to the query, 1
 * starting with it), then holding every word, then the weighted cover density. `everyHeld`: every candidate already
 * holds every word (a keyword query's matches), so that part is left out rather than tested on each.
 */
export function prior(terms: QueryTerm[], query: string, everyHeld = false, stats?: TermStats): Fragment {
  const key = searchText(query);
  // Natural language: the share of the terms' rarity held stands in for holding every word.
  const every = stats ? heldWeight(terms, stats) : everyHeld ? sql`0.5` : sql`(d.tsv @@ ${matchText(terms, 'every')}::tsquery)::int * 0.5`;
  return sql`((case when d.name_key = ${key} then 2 when starts_with(d.name_key, ${key}) then 1 else 0 end)
    + ${every}
    + ts_rank_cd(${RANK_WEIGHTS}::float4[], d.tsv, ${matchText(terms, 'any')}::tsquery, 32) * 0.5)`;
}

/**
 * The relevance of a matching document, 0..1, from what a reader sees in a result, each part a share (0..1) times its
 * weight (relevanceParts()). A name equal to the query (words compared as searchText reads them) lifts the score into
 * 0.9..0.99, a name starting with it into 0.8..0.89; all others stay at or below 0.8, so ordering by score puts exact
 * names first and name prefixes next. 1.0 stays an identifier's.
 */
export function relevance(terms: QueryTerm[], query: string, stats?: TermStats, fields?: FieldRules): Fragment {
  const { parts, key } = relevanceParts(terms, query, stats, fields);
  const base = sql`(${sql.join(
    parts.map((p) => sql`${num(p.weight)} * ${p.value} / ${num(p.of)}`),
    sql` + `,
  )})`;
  return sql`(case when d.name_key = ${key} then 0.9 + 0.09 * ${base}
    when starts_with(d.name_key, ${key}) then 0.8 + 0.09 * ${base} else 0.8 * ${base} end)`;
}

/**
 * What relevance() weighs. A keyword query (every document holds every word): how many of its words a document
 * holds (0.35), how many as typed rather than through a typo (0.15), how many in its name (0.15), how many
 * neighbouring query words stand together in it (0.2; a one-word query counts its one word), and the weighted cover
 * density of the matches (ts_rank_cd with RANK_WEIGHTS, 0.15). A natural-language query (any word; `stats` given):
 * BM25 (0.75: bm25(), so that a rare word decides more than a common one and a long text does not win by holding
 * every common word), how many of its words a document holds as typed (0.1: two words of a question held beat one held
 * in a name), the share of the terms' rarity held in the name (0.05) and neighbouring words together (0.1). Measured
 * on Cranfield's graded questions beside a reference BM25 library (bench/src/graded.ts, bench/RESULTS.md).
 */
function relevanceParts(terms: QueryTerm[], query: string, stats?: TermStats, fields?: FieldRules) {
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
  const pairs = Math.max(1, k - 1);
  const parts: Array<{ name: string; value: Fragment; of: number; weight: number }> = stats
    ? [
        { name: 'bm25', value: bm25(terms, stats), of: 1, weight: 0.75 },
        { name: 'words_as_typed', value: typed, of: k, weight: 0.1 },
        { name: 'words_in_name', value: heldWeight(terms, stats, true), of: 1, weight: 0.05 },
        { name: 'words_together', value: together, of: pairs, weight: 0.1 },
      ]
    : [
        { name: 'words_held', value: held, of: k, weight: 0.35 },
        { name: 'words_as_typed', value: typed, of: k, weight: 0.15 },
        { name: 'words_in_name', value: named, of: k, weight: 0.15 },
        { name: 'words_together', value: together, of: pairs, weight: 0.2 },
        { name: 'cover_density', value: sql`ts_rank_cd(${RANK_WEIGHTS}::float4[], d.tsv, ${matchText(terms, 'any')}::tsquery, 32)`, of: 1, weight: 0.15 },
      ];
  // A collection naming its searchable fields: how early in them the words stand weighs 0.15, the rest 0.85 of it.
  if (fields?.searchable) {
    for (const p of parts) p.weight = Math.round(p.weight * 0.85 * 1e4) / 1e4;
    parts.push({ name: 'searchable_fields', value: fieldOrder(terms, fields.searchable), of: 1, weight: 0.15 });
  }
  return { parts, key: searchText(query) };
}

/**
 * The parts of relevance() for these documents of a tenant (a page's hits): each part as a share (0..1) and the
 * weight it carries, and how the name compares with the query. `why` explains a score (SearchQuery.explain).
 */
export async function scoreParts(
  db: Kysely<any>,
  ranked: { terms: QueryTerm[]; text: string; stats?: TermStats; fields?: FieldRules },
  hits: Array<{ tenant_id: string; record_id: string }>,
): Promise<Map<string, { name: 'equal' | 'starts_with' | 'other'; parts: Record<string, { share: number; weight: number }> }>> {
  const out = new Map<string, { name: 'equal' | 'starts_with' | 'other'; parts: Record<string, { share: number; weight: number }> }>();
  if (hits.length === 0 || ranked.terms.length === 0) return out;
  const { parts, key } = relevanceParts(ranked.terms, ranked.text, ranked.stats, ranked.fields);
  const { rows } = await sql<{ tenant_id: string; record_id: string; name: string; shares: number[] }>`
    select d.tenant_id, d.record_id, array[${sql.join(
      parts.map((p) => sql`${p.value}::float8`),
      sql`, `,
    )}] as shares,
      case when d.name_key = ${key} then 'equal' when starts_with(d.name_key, ${key}) then 'starts_with' else 'other' end as name
    from search_engine.documents d
    where (d.tenant_id, d.record_id) in (select * from unnest(${hits.map((h) => h.tenant_id)}::text[], ${hits.map((h) => h.record_id)}::text[]))`.execute(db);
  // Within a name tier the parts weigh 0.09 of the score (0.8 outside one), as relevance() composes them.
  for (const r of rows) {
    const tier = r.name === 'other' ? 0.8 : 0.09;
    const share = (n: number, of: number) => Math.round((Number(n) / of) * 1e4) / 1e4;
    out.set(`${r.tenant_id}\u0000${r.record_id}`, {
      name: r.name as 'equal' | 'starts_with' | 'other',
      parts: Object.fromEntries(parts.map((p, i) => [p.name, { share: share(r.shares[i]!, p.of), weight: p.weight * tier }])),
    });
  }
  return out;
}

/**
 * The rarest terms whose documents, all of them, fit among `bound` candidates (a tsquery matching any), or none when
 * that is every term (the documents matching any term are then all candidates already): the documents a rare word
 * finds rank high, and the first documents matching any word, mostly common ones, may not hold them.
 */
function rareTerms(terms: QueryTerm[], stats: TermStats, bound: number): string[] {
  const byRarity = terms.map((t, i) => ({ t, df: stats.df[i]! })).sort((a, b) => a.df - b.df);
  const rare: QueryTerm[] = [];
  let held = 0;
  for (const { t, df } of byRarity) {
    if (df >= DF_CAP || held + df > bound) break;
    rare.push(t);
    held += df;
  }
  return rare.length > 0 && rare.length < terms.length ? [matchText(rare, 'any')] : [];
}

export class Ranking {
  private readonly counts: TermCounts;

  constructor(
    private readonly db: Kysely<any>,
    private readonly totals: Totals,
  ) {
    this.counts = new TermCounts(db);
  }

  /**
   * The page of a keyword or natural-language query whose terms (queryTerms(), with their near words) are given, and
   * its total. Filters are tested on the text's matches one by one (whereClause's row-by-row form).
   */
  async fullText(
    terms: QueryTerm[],
    type: 'keyword' | 'natural_language',
    query: SearchQuery,
    page: Page,
    fields: FieldRules = NO_RULES.fields,
  ): Promise<Found & { stats?: TermStats; facetRows?: FacetRows }> {
    // Every source of candidates reads `where`, so the collection's field settings (fields.ts) hold for each.
    const held = fieldMatches(terms, type === 'keyword' ? 'every' : 'any', fields);
    const where = held ? sql`${whereClause(query.scope, query.filters, false)} and ${held}` : whereClause(query.scope, query.filters, false);
    const text = query.text!.query;
    // Natural language weighs its terms by their rarity (TermCounts, one statement before the search unless counted lately).
    const stats = type === 'natural_language' ? await this.counts.stats(query.scope, terms) : undefined;
    const score = relevance(terms, text, stats, fields);
    const tsText = matchText(terms, type === 'keyword' ? 'every' : 'any');
    // The condition its matches meet (what its total counts).
    const matches = sql`${where} and d.tsv @@ ${tsText}::tsquery`;
    const scope = query.scope;
    if (query.sort) {
      const [found, total] = await Promise.all([
        sql<DocumentRow & { score: number }>`${prepared}
          select ${DOCUMENT_COLUMNS}, ${score} as score from search_engine.documents d where ${matches}
          order by ${sortOrder(query.sort)}, score desc, d.name_key collate "C", d.record_id
          limit ${page.limit} offset ${page.offset}`.execute(this.db),
        this.totals.count(matches, scope, countLimit(query.exact_total)),
      ]);
      return { hits: found.rows.map(toHit), ...total, fuzzy: false, matches, stats };
    }
    const bound = Math.max(CANDIDATES, page.offset + page.limit);
    const ranked = { where, score, prior: prior(terms, text, type === 'keyword', stats), key: searchText(text), page, bound };
    if (type === 'keyword') {
      const bound = Math.max(KEYWORD_CANDIDATES, page.offset + page.limit);
      // The matches read: as many as the total is counted exactly (countLimit()), and at least the candidates; with
      // facets, at least FACETS_READ, which they are counted from exactly when those are all the matches.
      const read = Math.max(countLimit(query.exact_total), bound, query.facets ? FACETS_READ : 0);
      const found = await this.keywordMatches({ ...ranked, bound }, tsText, matchText(terms, 'every', 'name'), read, countLimit(query.exact_total) + 1, query.facets?.fields);
      // Estimated from the matches counted, the first countLimit() + 1 however many more this page read: one total on every page.
      const total = found.matched !== undefined ? exactly(found.matched) : await this.totals.estimate(matches, read + 1, scope, found.scan);
      return { hits: found.hits, ...total, fuzzy: false, matches, ...(found.facetRows && { facetRows: found.facetRows }) };
    }
    // Counted beside the ranking (on a server, on a second connection): needed whenever the candidates are not all
    // the matches, and cheap when they are.
    const limit = countLimit(query.exact_total);
    const counting = this.totals.countUpTo(matches, limit);
    counting.catch(() => undefined);
    const total = async (matched: number | undefined): Promise<Total> => {
      if (matched !== undefined) return exactly(matched);
      const { n, scan } = await counting;
      return n <= limit ? exactly(n) : this.totals.estimate(matches, n, scope, scan);
    };
    // Natural language matches any term, so the documents holding every term are candidates in their own right:
    // the first `bound` documents holding any term might hold only one.
    const every = matchText(terms, 'every');
    const found = await this.candidates(ranked, tsText, matchText(terms, 'any', 'name'), every !== tsText ? [every] : [], rareTerms(terms, stats!, bound));
    return { hits: found.hits, ...(await total(found.matched)), fuzzy: false, matches, stats };
  }

  /**
   * A keyword query's page, in one statement that reads each match once (as the floor of ranking every match does,
   * without ranking every one): up to `read` + 1 matches (as many as the total is counted exactly, COUNTED_EXACTLY or
   * EXACT_TOTAL_MAX when asked: counting.ts), with what orders them cheaply (the name tier, and whether the name holds every word),
   * so their number is the exact total when there are no more. The first `bound`
   * of them in that order get the prior (ts_rank_cd and more, read again by row address), the best POOL by prior are
   * scored in full (relevance()), and the page is hydrated. When more match (a word most documents hold), the
   * documents whose name is the query are added, since the matches read may not hold them, and `matched` is
   * undefined: the total is then estimated from the scan of the first `estimatedFrom` of them (`scan`, scanned()).
   * Ties go by name, then record_id, as in candidates().
   */
  private async keywordMatches(
    ranked: { where: Fragment; score: Fragment; prior: Fragment; key: string; page: Page; bound: number },
    tsText: string,
    nameText: string,
    read: number,
    estimatedFrom: number,
    facetFields?: string[],
  ): Promise<{ hits: SearchHit[]; matched?: number; scan?: Scan; facetRows?: FacetRows }> {
    const { where, score, prior, key, page, bound } = ranked;
    const tsQuery = sql`${tsText}::tsquery`;
    // Asked for facets: the values of the matches read, with their row address, given back once (facets()).
    const values = (facetFields ?? []).map((field, i) => sql`, ${facetValue(field)} as ${sql.raw(`v${i}`)}`);
    const facetRows = facetFields
      ? sql`(select jsonb_agg(jsonb_build_array(m.row::text${sql.join(
          facetFields.map((_, i) => sql.raw(`, m.v${i}`)),
          sql``,
        )})) from m)`
      : sql`null::jsonb`;
    const found = await sql<Partial<DocumentRow> & { score: number | null; matched: number; scan: number[] | null; facet_rows: unknown[][] | null }>`${prepared}
      with m as materialized (
        select d.ctid as row, d.name_key,
          (case when d.name_key = ${key} then 2 when starts_with(d.name_key, ${key}) then 1 else 0 end)
            + (d.tsv @@ ${nameText}::tsquery)::int as tier${sql.join(values, sql``)}
        from search_engine.documents d where ${where} and d.tsv @@ ${tsQuery} limit ${read + 1}
      ),
      exactly as materialized (
        select d.ctid as row, d.name_key, 3 as tier from search_engine.documents d
        where (select count(*) from m) > ${read}
          and ${where} and d.name_key = ${key} and d.tsv @@ ${tsQuery} limit ${bound}
      ),
      c as (
        select row from (select * from exactly union all (select row, name_key, tier from m order by tier desc limit ${bound})) c group by row
      ),
      pool as (
        select d.ctid as row from c join search_engine.documents d on d.ctid = c.row
        order by ${prior} desc, d.name_key collate "C", d.record_id limit ${POOL + page.offset + page.limit}
      ),
      top as (
        select d.ctid as row, d.name_key, d.record_id, ${score} as score from pool join search_engine.documents d on d.ctid = pool.row
        order by score desc, d.name_key collate "C", d.record_id limit ${page.limit} offset ${page.offset}
      )
      select counted.matched, ${scanned(sql`counted.matched`, read, estimatedFrom)} as scan,
        case when p.n is null or p.n = 1 then counted.facet_rows end as facet_rows, p.*
      from (select count(*)::int as matched, ${facetRows} as facet_rows from m) counted
      left join lateral (
        select ${DOCUMENT_COLUMNS}, top.score, top.name_key, row_number() over () as n from top join search_engine.documents d on d.ctid = top.row
      ) p on true
      order by p.score desc, p.name_key collate "C", p.record_id`.execute(this.db);
    const matched = Number(found.rows[0]?.matched ?? 0);
    const rows = found.rows.find((r) => r.facet_rows != null)?.facet_rows;
    return {
      hits: found.rows.filter((r) => r.record_id != null).map((r) => toHit(r as DocumentRow & { score: number })),
      matched: matched <= read ? matched : undefined,
      scan: toScan(found.rows[0]?.scan),
      ...(facetFields && { facetRows: { rows: rows ?? [], complete: matched <= read } }),
    };
  }

  /**
   * The page ranked among candidates: up to `bound` documents matching anywhere (all of them, counted exactly in
   * `matched`, when fewer); when there are that many but too few name matches among them to fill the page, also up
   * to `bound` matching in the name; the documents whose name is the query; plus up to `bound` of each extra query.
   * Each source ranks rows by a cheap prior (name tier, every word held, ts_rank_cd) while it reads them; the best
   * POOL beyond the page's offset (ties by name, as the final order) are then scored in full (relevance() costs a
   * dozen tsquery matches a row), and only the page is read again to hydrate. Ties go by name, then record_id, so one
   * set of documents always comes back in one order however it was loaded.
   */
  private async candidates(
    ranked: { where: Fragment; score: Fragment; prior: Fragment; key: string; page: Page; bound: number },
    tsText: string,
    nameText: string,
    extra: string[],
    whenMany: string[] = [],
  ): Promise<{ hits: SearchHit[]; matched?: number }> {
    const { where, score, prior, key, page, bound } = ranked;
    const tsQuery = sql`${tsText}::tsquery`;
    const nameQuery = sql`${nameText}::tsquery`;
    const found = await sql<Partial<DocumentRow> & { score: number | null; matched: number }>`${prepared}
      with anywhere as materialized (
        select d.tenant_id, d.record_id, d.name_key, ${prior} as prior, d.tsv @@ ${nameQuery} as in_name
        from search_engine.documents d where ${where} and d.tsv @@ ${tsQuery} limit ${bound}
      ),
      named as materialized (
        select d.tenant_id, d.record_id, d.name_key, ${prior} as prior from search_engine.documents d
        where (select count(*) from anywhere) >= ${bound}
          and (select count(*) from anywhere where in_name) < ${page.offset + page.limit}
          and ${where} and d.tsv @@ ${nameQuery} limit ${bound}
      ),
      exactly as materialized (
        select d.tenant_id, d.record_id, d.name_key, ${prior} as prior from search_engine.documents d
        where (select count(*) from anywhere) >= ${bound}
          and ${where} and d.name_key = ${key} and d.tsv @@ ${tsQuery} limit ${bound}
      ),
      c as (
        select tenant_id, record_id, name_key, prior from anywhere
        union all select * from named union all select * from exactly
        ${sql.join(
          extra.map(
            (e) => sql`union all (select d.tenant_id, d.record_id, d.name_key, ${prior} from search_engine.documents d
              where ${where} and d.tsv @@ ${e}::tsquery limit ${bound})`,
          ),
          sql` `,
        )}
        ${sql.join(
          whenMany.map(
            (e) => sql`union all (select d.tenant_id, d.record_id, d.name_key, ${prior} from search_engine.documents d
              where (select count(*) from anywhere) >= ${bound} and ${where} and d.tsv @@ ${e}::tsquery limit ${bound})`,
          ),
          sql` `,
        )}
      ),
      pool as (
        select tenant_id, record_id from c group by tenant_id, record_id
        order by max(prior) desc, max(name_key) collate "C", record_id limit ${POOL + page.offset + page.limit}
      ),
      scored as (
        select d.tenant_id, d.record_id, d.name_key, ${score} as score from pool
        join search_engine.documents d on d.tenant_id = pool.tenant_id and d.record_id = pool.record_id
      ),
      top as (
        select * from scored order by score desc, name_key collate "C", record_id limit ${page.limit} offset ${page.offset}
      )
      select m.matched, p.* from (select count(*)::int as matched from anywhere) m
      left join lateral (
        select ${DOCUMENT_COLUMNS}, top.score, top.name_key from top
        join search_engine.documents d on d.tenant_id = top.tenant_id and d.record_id = top.record_id
      ) p on true
      order by p.score desc, p.name_key collate "C", p.record_id`.execute(this.db);
    const first = found.rows[0];
    const matched = Number(first?.matched ?? 0);
    return {
      hits: found.rows.filter((r) => r.record_id != null).map((r) => toHit(r as DocumentRow & { score: number })),
      matched: matched < bound ? matched : undefined,
    };
  }
}
