import { migrate, sql, type Database, type Kysely } from '@trove/db';
import type {
  AggregateQuery,
  AggregateResult,
  ApplyOutcome,
  CollectionGroup,
  Filter,
  IndexChange,
  SearchEngine,
  SearchHit,
  SearchQuery,
  SearchResult,
} from '../port';
import type { RankingExplanation } from '@trove/contracts';
import { withHighlights } from '../highlight';
import { rulesOf, withoutStopWords, type FieldRules } from '../terms';
import { Aggregation } from './aggregation';
import { Totals } from './counting';
import { IdentifierSearch } from './identifiers';
import { Listing } from './listing';
import { Maintenance } from './maintenance';
import { searchEngineMigrations } from './migrations';
import { Ranking, scoreParts, type TermStats } from './ranking';
import { queryTerms, type QueryTerm } from './tsquery';
import { explainMatches, foundBy, SCORE_PART } from '../explain';
import type { Found } from './rows';
import type { FacetRows } from './facet-tally';
import { Typos } from './typos';
import { Writes } from './writes';

/**
 * The terms a full-text search ranked with (typos included), the text its names were compared with, and (natural
 * language) the terms' rarity in the scope.
 */
interface Ranked {
  terms: QueryTerm[];
  text: string;
  stats?: TermStats;
  fields: FieldRules;
}

/**
 * PostgreSQL full-text search: the embedded default, on PGlite or a PostgreSQL server, in the search service's own
 * database under the `search_engine` schema (see migrations.ts for the layout).
 *
 * This class is the composition: each capability is one module holding both what it decides and the SQL it runs.
 * - writes.ts: apply (versions, deletes, generations, the vocabulary) and swaps;
 * - maintenance.ts: the table kept fit after writes (statistics, GIN pending lists, dead rows), as autovacuum would;
 * - filters.ts: the scope, filters and sort order every read starts from; listing.ts: results of filters only;
 * - identifiers.ts: identifier queries (exact, and an edition's base standard);
 * - ranking.ts: keyword and natural-language matching and relevance;
 * - typos.ts: a query word's near words, and the typo-tolerant fallback on names;
 * - counting.ts: total_estimate, exact up to 10,000 matches and estimated above;
 * - aggregation.ts: aggregate and publicCollections;
 * - rows.ts: the row a hit is read back from.
 */
export class PostgresSearchEngine implements SearchEngine {
  readonly kind = 'postgres' as const;
  private readonly writes: Writes;
  private readonly listing: Listing;
  private readonly identifiers: IdentifierSearch;
  private readonly ranking: Ranking;
  private readonly typos: Typos;
  private readonly aggregation: Aggregation;
  private readonly maintenance: Maintenance;
  /** Where queries run (the read database when one is given). */
  private readonly reads: Kysely<any>;

  constructor(
    private readonly database: Database,
    /** Another handle on the same database for queries (a pool whose statements time out); `database` otherwise. */
    reads?: Database,
  ) {
    // Queries run on the read database when one is given (its statements may be bounded in time); writes, swaps and
    // maintenance on `database`, never bounded in time.
    const db = (reads ?? database).db;
    this.reads = db;
    const totals = new Totals(db);
    this.listing = new Listing(db, totals);
    this.identifiers = new IdentifierSearch(this.listing);
    this.ranking = new Ranking(db, totals);
    this.typos = new Typos(db, totals);
    this.aggregation = new Aggregation(db, totals);
    // Scopes written to get new vocabulary epochs: their kept near words are not used again (see Typos.withTypos()).
    this.maintenance = new Maintenance(database.db, database.kind);
    this.writes = new Writes(database.db, (changes) => this.typos.retireNearWords(changes), this.maintenance);
  }

  async init(): Promise<void> {
    await migrate(this.database, 'search_engine', searchEngineMigrations);
  }

  async apply(changes: IndexChange[]): Promise<ApplyOutcome[]> {
    return this.writes.apply(changes);
  }

  async swapGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    await this.writes.swapGeneration(tenant_id, collection, generation);
  }

  /**
   * The page and total (find()), with highlights (highlight.ts) and facets over the same matches (aggregation.ts)
   * when the query asks for them.
   */
  async search(query: SearchQuery): Promise<SearchResult> {
    const asked = query.facets;
    const { matches, ranked, facetRows, ...found } = await this.find(query);
    const facets =
      asked &&
      (await this.aggregation.facets(query.scope, found.total_estimate > 0 ? matches : sql`false`, found, asked, {
        exactTotal: query.exact_total,
        ...(found.total_estimate > 0 && facetRows && { prefix: facetRows }),
      }));
    const hits = withHighlights(found.hits, query);
    return { ...found, hits: query.explain ? await this.explained(hits, query, found.fuzzy, ranked) : hits, ...(facets && { facets }) };
  }

  /**
   * The hits with why each ranked where it did: what of the query it holds (explain.ts) and the score's parts, those
   * of relevance() for full text (ranking.ts), read again for the page's hits.
   */
  private async explained(hits: SearchHit[], query: SearchQuery, fuzzy: boolean, ranked?: Ranked): Promise<SearchHit[]> {
    const matchedBy = foundBy(query, fuzzy);
    const parts = matchedBy === 'text' && ranked ? await scoreParts(this.reads, ranked, hits.map((h) => h.document)) : undefined;
    return hits.map((hit) => {
      const own = parts?.get(`${hit.document.tenant_id}\u0000${hit.document.record_id}`);
      const score: RankingExplanation['score'] = own
        ? { total: hit.score, name: own.name, name_bonus: own.name === 'equal' ? 0.9 : own.name === 'starts_with' ? 0.8 : 0, parts: own.parts }
        : { total: hit.score, parts: { [SCORE_PART[matchedBy]]: { share: matchedBy === 'fallback' ? hit.score * 2 : 1, weight: matchedBy === 'fallback' ? 0.5 : hit.score } } };
      return { ...hit, ranking: { matched_by: matchedBy, ...explainMatches(hit.document, query), score } };
    });
  }

  /**
   * Filters only: listed by name (listing.ts). Identifiers: exact matches (identifiers.ts). Keyword and natural
   * language: the query's words expanded to their near words (typos.ts), then matched and ranked (ranking.ts); when
   * that matches nothing, the typo-tolerant fallback on names (typos.ts).
   */
  private async find(query: SearchQuery): Promise<Found & { ranked?: Ranked; facetRows?: FacetRows }> {
    const page = { limit: query.limit, offset: query.offset };
    const text = query.text;
    if (!text || !text.query.trim()) return this.listing.filtered(query, page);
    if (text.type === 'identifier') return this.identifiers.search(query, text, page);
    const rules = rulesOf(query.settings);
    const terms = queryTerms(text.query, text.type === 'keyword' ? 'keyword' : 'any', rules);
    if (terms.length > 0) {
      const expanded = rules.typos ? await this.typos.withTypos(query.scope, terms, rules.typos) : terms;
      // Names are compared with the query without its stop words.
      const rankedText = withoutStopWords(text.query, rules);
      const { stats, ...found } = await this.ranking.fullText(expanded, text.type, { ...query, text: { ...text, query: rankedText } }, page, rules.fields);
      if (found.total_estimate > 0) return { ...found, ranked: { terms: expanded, text: rankedText, stats, fields: rules.fields } };
    }
    // Typo tolerance turned off for the collection, or for names: no typo-tolerant fallback (it guesses by name) either.
    return rules.typos && !rules.fields.typedOnly.name
      ? this.typos.fuzzy(text.query, query, page)
      : { hits: [], total_estimate: 0, total_is_estimate: false, fuzzy: false, matches: sql`false` };
  }

  async aggregate(query: AggregateQuery): Promise<AggregateResult> {
    return this.aggregation.aggregate(query);
  }

  async publicCollections(filters: Filter[]): Promise<CollectionGroup[]> {
    return this.aggregation.publicCollections(filters);
  }

  async ping(): Promise<void> {
    await this.database.ping();
  }

  /**
   * Runs the maintenance that writes so far call for, now rather than once they pause, and waits for it (what a
   * pass does: maintenance.ts).
   */
  async maintain(): Promise<void> {
    await this.maintenance.flush();
  }

  /** The database belongs to the caller (the search service shares it), so closing the engine leaves it open. */
  async close(): Promise<void> {
    await this.maintenance.close();
  }
}
