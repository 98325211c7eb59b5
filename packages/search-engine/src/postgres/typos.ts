import { LRUCache } from 'lru-cache';
import { prepared, sql, type Kysely } from '@trove/db';
import type { IndexChange, SearchQuery, SearchScope } from '../port';
import { DEFAULT_TYPO_RULES, oneTypoAway, typoBudget, typoDistance, withinTypos, type TypoRules } from '../typos';
import { countLimit, exactly, type Totals } from './counting';
import { collectionCondition, sortOrder, whereClause } from './filters';
import { CANDIDATES } from './ranking';
import { searchText, type QueryTerm } from './tsquery';
import { DOCUMENT_COLUMNS, textArray, toHit, type DocumentRow, type Found, type Page } from './rows';

/**
 * Typo tolerance in the PostgreSQL engine, both ways it works. Before a text query runs, each word is expanded to its
 * near words in the scope's vocabulary (withTypos(); the words writes.ts records, the distances in ../typos.ts), which
 * ranking.ts matches below the word as typed. When the text still matches nothing, the typo-tolerant fallback
 * (fuzzy()) finds names similar to the query.
 */

/** Near words a query word is expanded to at most: the closest, so a common short word cannot flood the query. */
const MAX_TYPOS = 8;
/**
 * Trigram similarity that a word two typos from a query word of 9 or more letters reaches: two transpositions in an
 * 11-letter word leave 0.2 ("scerwdirver" and "screwdriver"). Lower only widens the candidates the distance check reads.
 */
const TWO_TYPO_SIMILARITY = 0.2;
/** Query words whose near words are kept (withTypos()), and for how long. */
const NEAR_WORDS_KEPT = 20_000;
const NEAR_WORDS_TTL_MS = 30_000;

export class Typos {
  /** Raised for a scope whenever this engine writes documents to it, which retires its words' kept near words. */
  private readonly vocabularyEpochs = new Map<string, number>();
  /**
   * Each query word's near words in a scope's vocabulary, kept NEAR_WORDS_TTL_MS: the same words come back in query
   * after query, and a word the vocabulary gained meanwhile is missed for at most that long.
   */
  private readonly nearWords = new LRUCache<string, string[]>({ max: NEAR_WORDS_KEPT, ttl: NEAR_WORDS_TTL_MS });

  constructor(
    private readonly db: Kysely<any>,
    private readonly totals: Totals,
  ) {}

  /** Scopes written to get new vocabulary epochs: their kept near words are not used again (see withTypos()). */
  retireNearWords(changes: IndexChange[]): void {
    const scopes = new Set<string>();
    for (const c of changes) {
      if (c.op !== 'upsert') continue;
      scopes.add(vocabularyKey({ kind: 'private', tenant_id: c.document.tenant_id, collection: c.document.collection }));
      scopes.add(vocabularyKey({ kind: 'public', collection: c.document.collection }));
    }
    if (scopes.size > 0) scopes.add(vocabularyKey({ kind: 'public' }));
    for (const key of scopes) this.vocabularyEpochs.set(key, (this.vocabularyEpochs.get(key) ?? 0) + 1);
  }

  /**
   * The terms with their near words (see ../typos.ts) from the scope's vocabulary, in one lookup: the words one typo
   * away by exact match (a few hundred strings per word, found through the primary key), and for words of 9 letters or
   * more, also those sharing enough trigrams (pg_trgm's `%` at TWO_TYPO_SIMILARITY) to be two typos away; every
   * candidate is checked with the typo distance before it is used, closest first, at most MAX_TYPOS per word. A word's
   * near words are kept (nearWords) until this engine writes to the scope again or NEAR_WORDS_TTL_MS pass (another
   * engine's writes).
   */
  async withTypos(scope: SearchScope, terms: QueryTerm[], rules: TypoRules = DEFAULT_TYPO_RULES): Promise<QueryTerm[]> {
    const vocabulary = vocabularyKey(scope);
    // The rules are part of the key: a collection's typo settings change which words are near.
    const scopeKey = `${vocabulary}\u0000${this.vocabularyEpochs.get(vocabulary) ?? 0}\u0000${rules.one}:${rules.two}`;
    const open = [...new Set(terms.filter((t) => typoBudget(t.word, rules) > 0).map((t) => t.word))];
    const unknown = open.filter((w) => !this.nearWords.has(`${scopeKey}\u0000${w}`));
    if (unknown.length > 0) {
      const found = await this.lookUpNearWords(scope, unknown, rules);
      for (const word of unknown) {
        const near = found
          .filter((w) => withinTypos(word, w, rules))
          .map((w) => ({ w, d: typoDistance(word, w, 2) }))
          .sort((a, b) => a.d - b.d || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0))
          .slice(0, MAX_TYPOS)
          .map((x) => x.w);
        this.nearWords.set(`${scopeKey}\u0000${word}`, near);
      }
    }
    return terms.map((t) => {
      const near = typoBudget(t.word, rules) > 0 ? (this.nearWords.get(`${scopeKey}\u0000${t.word}`) ?? []) : [];
      return near.length > 0 ? { ...t, typos: near } : t;
    });
  }

  /** The vocabulary words of the scope one typo away from `words`, and for words of 9 letters or more, two. */
  private async lookUpNearWords(scope: SearchScope, words: string[], rules: TypoRules): Promise<string[]> {
    const variants = [...new Set(words.flatMap((w) => oneTypoAway(w, rules)))];
    const long = words.filter((w) => w.length >= rules.two);
    const inScope = collectionCondition(scope, 'v');
    const similar = long.length > 0 ? sql` or ${sql.join(long.map((w) => sql`v.word % ${w}`), sql` or `)}` : sql``;
    const lookup = sql<{ word: string }>`${prepared}
      select distinct v.word from search_engine.vocabulary v
      where ${inScope} and (v.word = any(${textArray(variants)}::text[])${similar})`;
    const { rows } =
      long.length === 0
        ? await lookup.execute(this.db)
        : await this.db.transaction().execute(async (trx) => {
            await sql`set local pg_trgm.similarity_threshold = ${sql.lit(TWO_TYPO_SIMILARITY)}`.execute(trx);
            return lookup.execute(trx);
          });
    return rows.map((r) => r.word);
  }

  /**
   * The typo-tolerant fallback: names whose closest word run is similar to the query (pg_trgm word similarity at
   * its default threshold, 0.6), most similar first among the first `bound` similar names (one common word of the
   * query can make thousands of names similar). Scores are the similarity, halved: a guess never outranks what a
   * real match would have scored.
   */
  async fuzzy(text: string, query: SearchQuery, page: Page): Promise<Found> {
    const where = whereClause(query.scope, query.filters);
    const probe = searchText(text);
    if (!probe) return { hits: [], ...exactly(0), fuzzy: false, matches: sql`false` };
    const similar = sql`${where} and ${probe} <% lower(d.name)`;
    const score = sql`word_similarity(${probe}, lower(d.name)) / 2`;
    const bound = Math.max(CANDIDATES, page.offset + page.limit);
    const rows = query.sort
      ? sql<DocumentRow & { score: number }>`${prepared}
          select ${DOCUMENT_COLUMNS}, ${score} as score from search_engine.documents d where ${similar}
          order by ${sortOrder(query.sort)}, score desc, d.record_id limit ${page.limit} offset ${page.offset}`
      : sql<DocumentRow & { score: number }>`${prepared}
          with m as materialized (
            select d.tenant_id, d.record_id, ${score} as score from search_engine.documents d where ${similar} limit ${bound}
          ), top as (select * from m order by score desc, record_id limit ${page.limit} offset ${page.offset})
          select ${DOCUMENT_COLUMNS}, top.score from top
          join search_engine.documents d on d.tenant_id = top.tenant_id and d.record_id = top.record_id
          order by top.score desc, d.record_id`;
    const [found, total] = await Promise.all([rows.execute(this.db), this.totals.count(similar, query.scope, countLimit(query.exact_total))]);
    return { hits: found.rows.map(toHit), ...total, fuzzy: total.total_estimate > 0, matches: similar };
  }
}

/** The vocabulary a scope's queries expand their words from. */
function vocabularyKey(scope: SearchScope): string {
  return scope.kind === 'private' ? `p\u0000${scope.tenant_id}\u0000${scope.collection}` : `o\u0000${scope.collection ?? ''}`;
}
