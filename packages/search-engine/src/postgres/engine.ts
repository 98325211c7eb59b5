import { LRUCache } from 'lru-cache';
import { AGGREGATE_GROUP_LIMIT } from '@trove/contracts';
import { migrate, prepared, sql, type Database, type Kysely } from '@trove/db';
import { changeProblem } from '../documents';
import { detectIdentifier, editionBases, normaliseIdentifier } from '../identifiers';
import type {
  AggregateQuery,
  AggregateResult,
  ApplyOutcome,
  CollectionGroup,
  FieldStats,
  Filter,
  IndexChange,
  IndexDocument,
  Scalar,
  SearchEngine,
  SearchHit,
  SearchQuery,
  SearchResult,
  SearchScope,
} from '../port';
import { searchEngineMigrations } from './migrations';
import {
  DOCUMENT_COLUMNS,
  NAME_ORDER,
  matchText,
  prior,
  queryTerms,
  relevance,
  scopeCondition,
  searchText,
  sortOrder,
  whereClause,
  type Fragment,
  type QueryTerm,
} from './sql';
import { oneTypoAway, typoBudget, typoDistance, withinTypos } from '../typos';
import { recordIdOf, swapActiveGeneration, versionOf, writeChanges } from './writes';

/** Statistics are refreshed after this many written documents, or a fifth of the table if that is more. */
const ANALYZE_EVERY = 20_000;
const ANALYZE_FRACTION = 0.2;

/**
 * PostgreSQL full-text search: the embedded default, on PGlite or a PostgreSQL server, in the search service's own
 * database under the `search_engine` schema (see migrations.ts for the layout).
 *
 * Ranking: sql.ts relevance() over the weighted tsvector (name and identifiers A, description B, collection_data
 * text C; the generated description is not indexed), every score within 0..1, an identifier match 1.0. Query words
 * are expanded to their near words from the collection's vocabulary first (withTypos). To keep latency flat on large
 * collections, a text query ranks a bounded candidate set rather than every match: the first CANDIDATES documents
 * matching anywhere, plus, when those hold too few name matches, the first CANDIDATES matching in the name, the
 * documents whose name is the query (and, for natural language, the first CANDIDATES holding every term). A keyword query whose exact
 * words already match CANDIDATES documents takes its candidates from those, since matching the last word as a
 * prefix costs GIN several times more. When a query matches more than that, the best-ranked page comes from the
 * candidates, not necessarily from all matches; an explicit sort always considers every match.
 *
 * Identifier hits (all 1.0) and filter-only hits come by name, then record_id, as in Elasticsearch.
 *
 * total_estimate: exact up to EXACT_COUNT matches (counting more would read most of a large collection); above that
 * an estimate from a table sample, capped at the scope's documents, with total_is_estimate (see estimate()).
 * Identifier hits of an edition query's base standard score EDITION_BASE_SCORE and follow the edition's.
 */
export class PostgresSearchEngine implements SearchEngine {
  readonly kind = 'postgres' as const;
  /** Where queries run (the read database when one is given: its statements may be bounded in time). */
  private readonly db: Kysely<any>;
  /** Where writes, ANALYZE and swaps run, never bounded in time. */
  private readonly writes: Kysely<any>;
  private pages?: { value: number; at: number };
  private readonly scopeSizes = new Map<string, { value: number; at: number }>();
  /**
   * Each query word's near words in a scope's vocabulary, kept NEAR_WORDS_TTL_MS: the same words come back in query
   * after query, and a word the vocabulary gained meanwhile is missed for at most that long.
   */
  /** Raised for a scope whenever this engine writes documents to it, which retires its words' kept near words. */
  private readonly vocabularyEpochs = new Map<string, number>();
  private readonly nearWords = new LRUCache<string, string[]>({ max: NEAR_WORDS_KEPT, ttl: NEAR_WORDS_TTL_MS });
  private writesSinceAnalyze = 0;
  private analyzeAfter = ANALYZE_EVERY;
  private analyzing?: Promise<void>;

  constructor(
    private readonly database: Database,
    /** Another handle on the same database for queries (a pool whose statements time out); `database` otherwise. */
    reads?: Database,
  ) {
    this.db = (reads ?? database).db;
    this.writes = database.db;
  }

  async init(): Promise<void> {
    await migrate(this.database, 'search_engine', searchEngineMigrations);
  }

  async apply(changes: IndexChange[]): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = changes.map((change) => ({
      record_id: recordIdOf(change),
      version: versionOf(change),
      status: 'indexed',
    }));
    const valid: IndexChange[] = [];
    changes.forEach((change, i) => {
      const problem = changeProblem(change);
      if (problem) outcomes[i] = { ...outcomes[i]!, status: 'failed', error: problem };
      else valid.push(change);
    });
    if (valid.length === 0) return outcomes;
    this.noteWrites(valid.length);
    this.retireNearWords(valid);
    try {
      await this.writes.transaction().execute((trx) => writeChanges(trx, valid));
    } catch {
      // Something in the batch PostgreSQL refuses that validation did not foresee: write item by item, each in a
      // savepoint, so only the culprits fail.
      await this.writes.transaction().execute(async (trx) => {
        for (const [i, change] of changes.entries()) {
          if (outcomes[i]!.status === 'failed') continue;
          await sql`savepoint item`.execute(trx);
          try {
            await writeChanges(trx, [change]);
            await sql`release savepoint item`.execute(trx);
          } catch (err) {
            await sql`rollback to savepoint item`.execute(trx);
            outcomes[i] = { ...outcomes[i]!, status: 'failed', error: (err as Error).message };
          }
        }
      });
    }
    return outcomes;
  }

  /** Scopes written to get new vocabulary epochs: their kept near words are not used again (see withTypos()). */
  private retireNearWords(changes: IndexChange[]): void {
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
   * Refreshes the planner's statistics after ANALYZE_EVERY written documents, or a fifth of the table when that is
   * more (as autovacuum scales its own threshold), in the background. Query plans (identifier lookups, candidate
   * bounds) depend on them, and a bulk load can outrun autovacuum, or meet a server where it is off. A fixed threshold
   * would sample the whole table again every 20,000 documents however large it grew.
   */
  private noteWrites(count: number): void {
    this.writesSinceAnalyze += count;
    if (this.writesSinceAnalyze < this.analyzeAfter || this.analyzing) return;
    this.writesSinceAnalyze = 0;
    this.analyzing = this.analyze()
      .catch(() => undefined)
      .finally(() => {
        this.analyzing = undefined;
      });
  }

  private async analyze(): Promise<void> {
    // Only the columns query plans estimate from: the text and identifier statistics (the costly part), the scope and
    // the name key. Names, descriptions, collection_data (containment has no statistics to use) and the rest cost an
    // ANALYZE about as much again and change no plan.
    await sql`analyze search_engine.documents (tenant_id, collection, searchable, visibility, generation, name_key, tsv, identifiers)`.execute(this.writes);
    const { rows } = await sql<{ rows: number }>`
      select reltuples::float8 as rows from pg_class where oid = 'search_engine.documents'::regclass`.execute(this.writes);
    this.analyzeAfter = Math.max(ANALYZE_EVERY, Math.round((rows[0]?.rows ?? 0) * ANALYZE_FRACTION));
  }

  async swapGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    await this.writes.transaction().execute((trx) => swapActiveGeneration(trx, tenant_id, collection, generation));
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const where = whereClause(query.scope, query.filters);
    const page = { limit: query.limit, offset: query.offset };
    const text = query.text;
    if (!text || !text.query.trim()) {
      const order = query.sort ? sql`${sortOrder(query.sort)}, ${NAME_ORDER}` : NAME_ORDER;
      return this.listed(where, order, page, query.scope);
    }
    if (text.type === 'identifier') {
      const identifiers = text.identifiers.length
        ? text.identifiers.map(normaliseIdentifier)
        : (detectIdentifier(text.query) ?? [normaliseIdentifier(text.query)]);
      const bases = editionBases(text.query).filter((b) => !identifiers.includes(b));
      const exact = sql`d.identifiers && ${textArray(identifiers)}::text[]`;
      if (bases.length > 0) {
        // An edition's query also finds the base standard, scoring EDITION_BASE_SCORE below the edition's 1.0.
        const match = sql`${where} and d.identifiers && ${textArray([...identifiers, ...bases])}::text[]`;
        const score = sql`case when ${exact} then 1.0 else ${sql.lit(EDITION_BASE_SCORE)} end`;
        const order = query.sort ? sql`${sortOrder(query.sort)}, score desc, ${NAME_ORDER}` : sql`score desc, ${NAME_ORDER}`;
        return this.listed(match, order, page, query.scope, score);
      }
      // Every hit scores 1.0, so ties go by name, then record_id: an order the data decides, not the ids a load
      // happened to draw (record_id order changed from one load of the same data to the next).
      const order = query.sort ? sql`${sortOrder(query.sort)}, ${NAME_ORDER}` : NAME_ORDER;
      return this.listed(sql`${where} and ${exact}`, order, page, query.scope);
    }
    const terms = queryTerms(text.query, text.type === 'keyword' ? 'keyword' : 'any');
    if (terms.length > 0) {
      const textWhere = whereClause(query.scope, query.filters, false);
      const found = await this.fullText(textWhere, await this.withTypos(query.scope, terms), text.type, query, page);
      if (found.total_estimate > 0) return found;
    }
    return this.fuzzy(where, text.query, query, page);
  }

  async aggregate(query: AggregateQuery): Promise<AggregateResult> {
    const where = whereClause(query.scope, query.filters);
    const fields = [...new Set(query.stats ?? [])].slice(0, 5);
    const numeric = (field: string) =>
      sql`case when jsonb_typeof(d.data -> ${field}) = 'number' then (d.data ->> ${field})::float8 end`;
    const statColumns = fields.map(
      (field, i) =>
        sql`count(${numeric(field)}) as ${sql.raw(`c${i}`)}, min(${numeric(field)}) as ${sql.raw(`mn${i}`)},
            max(${numeric(field)}) as ${sql.raw(`mx${i}`)}, avg(${numeric(field)}) as ${sql.raw(`av${i}`)}`,
    );
    const totals = sql<Record<string, number | null>>`
      select ${sql.join([sql`count(*) as total`, ...statColumns])} from search_engine.documents d where ${where}`.execute(
      this.db,
    );
    const groups = query.group_by ? this.groups(where, query.group_by) : Promise.resolve([]);
    const [row, grouped] = await Promise.all([totals.then((r) => r.rows[0]!), groups]);
    const stats: Record<string, FieldStats> = {};
    fields.forEach((field, i) => {
      const count = Number(row[`c${i}`] ?? 0);
      stats[field] = {
        count,
        min: count ? Number(row[`mn${i}`]) : null,
        max: count ? Number(row[`mx${i}`]) : null,
        avg: count ? Number(row[`av${i}`]) : null,
      };
    });
    return { total: Number(row.total), groups: grouped, stats };
  }

  async publicCollections(filters: Filter[]): Promise<CollectionGroup[]> {
    const where = whereClause({ kind: 'public' }, filters);
    const result = await sql<{ collection: string; total: number; record_type: string; n: number }>`
      with pairs as (
        select d.collection, d.record_type, count(*)::int as n
        from search_engine.documents d where ${where} group by d.collection, d.record_type),
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

  async ping(): Promise<void> {
    await this.database.ping();
  }

  /** The database belongs to the caller (the search service shares it), so closing the engine leaves it open. */
  async close(): Promise<void> {
    await this.analyzing;
  }

  private async groups(where: Fragment, field: string): Promise<Array<{ value: Scalar; count: number }>> {
    // A document counts once per distinct value; an array counts once per distinct element.
    const values =
      field === 'record_type' || field === 'collection'
        ? sql`select to_jsonb(${sql.ref(`d.${field}`)}) as value`
        : sql`select distinct e.value from jsonb_array_elements(
            case when jsonb_typeof(d.data -> ${field}) = 'array' then d.data -> ${field}
            else jsonb_build_array(d.data -> ${field}) end) e(value)`;
    const result = await sql<{ value: Scalar; count: number }>`
      select v.value, count(*)::int as count
      from search_engine.documents d cross join lateral (${values}) v
      where ${where} and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
      group by v.value order by count(*) desc, v.value limit ${AGGREGATE_GROUP_LIMIT}`.execute(this.db);
    return result.rows.map((r) => ({ value: r.value, count: Number(r.count) }));
  }

  /**
   * Every match in one order, scored 1.0 (or by `score`): filters only, or identifiers. Counting comes first: up to
   * SORTED_WHOLE matches are collected and sorted whole, since walking an order index while filtering for a few
   * matches strung out along it can read most of the collection; more matches than that are dense enough for the walk.
   */
  private async listed(where: Fragment, order: Fragment, page: Page, scope: SearchScope, score: Fragment = sql`1.0`): Promise<SearchResult> {
    // One statement for the common case: up to SORTED_WHOLE matches, counted, sorted whole and paged.
    const whole = await sql<Partial<DocumentRow> & { score: number | null; matched: number }>`${prepared}
      with m as materialized (select d.ctid as row from search_engine.documents d where ${where} limit ${SORTED_WHOLE + 1})
      select c.matched, p.* from (select count(*)::int as matched from m) c
      left join lateral (
        select ${DOCUMENT_COLUMNS}, ${score} as score from m join search_engine.documents d on d.ctid = m.row
        where c.matched <= ${SORTED_WHOLE} order by ${order} limit ${page.limit} offset ${page.offset}
      ) p on true`.execute(this.db);
    const counted = Number(whole.rows[0]?.matched ?? 0);
    if (counted <= SORTED_WHOLE) {
      const hits = whole.rows.filter((r) => r.record_id != null).map((r) => toHit(r as DocumentRow & { score: number }));
      return { hits, ...exactly(counted), fuzzy: false };
    }
    const [found, total] = await Promise.all([
      sql<DocumentRow & { score: number }>`${prepared}
        select ${DOCUMENT_COLUMNS}, ${score} as score from search_engine.documents d where ${where}
        order by ${order} limit ${page.limit} offset ${page.offset}`.execute(this.db),
      this.count(where, scope),
    ]);
    return { hits: found.rows.map(toHit), ...total, fuzzy: false };
  }

  /**
   * The terms with their near words (see typos.ts) from the scope's vocabulary, in one lookup: the words one typo away
   * by exact match (a few hundred strings per word, found through the primary key), and for words of 9 letters or
   * more, also those sharing enough trigrams (pg_trgm's `%` at TWO_TYPO_SIMILARITY) to be two typos away; every candidate is
   * checked with the typo distance before it is used, closest first, at most MAX_TYPOS per word. A word's near words are
   * kept (nearWords) until this engine writes to the scope again or NEAR_WORDS_TTL_MS pass (another engine's writes).
   */
  private async withTypos(scope: SearchScope, terms: QueryTerm[]): Promise<QueryTerm[]> {
    const vocabulary = vocabularyKey(scope);
    const scopeKey = `${vocabulary}\u0000${this.vocabularyEpochs.get(vocabulary) ?? 0}`;
    const open = [...new Set(terms.filter((t) => typoBudget(t.word) > 0).map((t) => t.word))];
    const unknown = open.filter((w) => !this.nearWords.has(`${scopeKey}\u0000${w}`));
    if (unknown.length > 0) {
      const found = await this.lookUpNearWords(scope, unknown);
      for (const word of unknown) {
        const near = found
          .filter((w) => withinTypos(word, w))
          .map((w) => ({ w, d: typoDistance(word, w, 2) }))
          .sort((a, b) => a.d - b.d || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0))
          .slice(0, MAX_TYPOS)
          .map((x) => x.w);
        this.nearWords.set(`${scopeKey}\u0000${word}`, near);
      }
    }
    return terms.map((t) => {
      const near = typoBudget(t.word) > 0 ? (this.nearWords.get(`${scopeKey}\u0000${t.word}`) ?? []) : [];
      return near.length > 0 ? { ...t, typos: near } : t;
    });
  }

  /** The vocabulary words of the scope one typo away from `words`, and for words of 9 letters or more, two. */
  private async lookUpNearWords(scope: SearchScope, words: string[]): Promise<string[]> {
    const variants = [...new Set(words.flatMap((w) => oneTypoAway(w)))];
    const long = words.filter((w) => w.length >= 9);
    const inScope =
      scope.kind === 'private'
        ? sql`v.tenant_id = ${scope.tenant_id} and v.collection = ${scope.collection}`
        : scope.collection === undefined
          ? sql`true`
          : sql`v.collection = ${scope.collection}`;
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

  private async fullText(
    where: Fragment,
    terms: QueryTerm[],
    type: 'keyword' | 'natural_language',
    query: SearchQuery,
    page: Page,
  ): Promise<SearchResult> {
    const text = query.text!.query;
    const score = relevance(terms, text);
    const tsText = matchText(terms, type === 'keyword' ? 'every' : 'any');
    const matches = sql`${where} and d.tsv @@ ${tsText}::tsquery`;
    const scope = query.scope;
    if (query.sort) {
      const [found, total] = await Promise.all([
        sql<DocumentRow & { score: number }>`${prepared}
          select ${DOCUMENT_COLUMNS}, ${score} as score from search_engine.documents d where ${matches}
          order by ${sortOrder(query.sort)}, score desc, d.name_key collate "C", d.record_id
          limit ${page.limit} offset ${page.offset}`.execute(this.db),
        this.count(matches, scope),
      ]);
      return { hits: found.rows.map(toHit), ...total, fuzzy: false };
    }
    const bound = Math.max(CANDIDATES, page.offset + page.limit);
    const ranked = { where, score, prior: prior(terms, text, type === 'keyword'), key: searchText(text), page, bound };
    if (type === 'keyword') {
      const found = await this.keywordMatches(
        { ...ranked, bound: Math.max(KEYWORD_CANDIDATES, page.offset + page.limit) },
        tsText,
        matchText(terms, 'every', 'name'),
      );
      return { hits: found.hits, ...(found.matched !== undefined ? exactly(found.matched) : await this.estimate(matches, EXACT_COUNT + 1, scope)), fuzzy: false };
    }
    // Counted beside the ranking (on a server, on a second connection): needed whenever the candidates are not all
    // the matches, and cheap when they are.
    const counting = this.countUpTo(matches);
    counting.catch(() => undefined);
    const total = async (matched: number | undefined): Promise<Total> => {
      if (matched !== undefined) return exactly(matched);
      const n = await counting;
      return n <= EXACT_COUNT ? exactly(n) : this.estimate(matches, n, scope);
    };
    // Natural language matches any term, so the documents holding every term are candidates in their own right:
    // the first `bound` documents holding any term might hold only one.
    const every = matchText(terms, 'every');
    const found = await this.candidates(ranked, tsText, matchText(terms, 'any', 'name'), every !== tsText ? [every] : []);
    return { hits: found.hits, ...(await total(found.matched)), fuzzy: false };
  }

  /**
   * A keyword query's page, in one statement that reads each match once (as the floor of ranking every match does,
   * without ranking every one): up to EXACT_COUNT + 1 matches, with what orders them cheaply (the name tier, and
   * whether the name holds every word), so their number is the exact total when there are no more. The first `bound`
   * of them in that order get the prior (ts_rank_cd and more, read again by row address), the best POOL by prior are
   * scored in full (relevance()), and the page is hydrated. When more match (a word most documents hold), the
   * documents whose name is the query are added, since the matches read may not hold them, and `matched` is
   * undefined: the total is then estimated. Ties go by name, then record_id, as in candidates().
   */
  private async keywordMatches(
    ranked: { where: Fragment; score: Fragment; prior: Fragment; key: string; page: Page; bound: number },
    tsText: string,
    nameText: string,
  ): Promise<{ hits: SearchHit[]; matched?: number }> {
    const { where, score, prior, key, page, bound } = ranked;
    const tsQuery = sql`${tsText}::tsquery`;
    const found = await sql<Partial<DocumentRow> & { score: number | null; matched: number }>`${prepared}
      with m as materialized (
        select d.ctid as row, d.name_key,
          (case when d.name_key = ${key} then 2 when starts_with(d.name_key, ${key}) then 1 else 0 end)
            + (d.tsv @@ ${nameText}::tsquery)::int as tier
        from search_engine.documents d where ${where} and d.tsv @@ ${tsQuery} limit ${EXACT_COUNT + 1}
      ),
      exactly as materialized (
        select d.ctid as row, d.name_key, 3 as tier from search_engine.documents d
        where (select count(*) from m) > ${EXACT_COUNT}
          and ${where} and d.name_key = ${key} and d.tsv @@ ${tsQuery} limit ${bound}
      ),
      c as (
        select row from (select * from exactly union all (select * from m order by tier desc limit ${bound})) c group by row
      ),
      pool as (
        select d.ctid as row from c join search_engine.documents d on d.ctid = c.row
        order by ${prior} desc, d.name_key collate "C", d.record_id limit ${POOL + page.offset + page.limit}
      ),
      top as (
        select d.ctid as row, d.name_key, d.record_id, ${score} as score from pool join search_engine.documents d on d.ctid = pool.row
        order by score desc, d.name_key collate "C", d.record_id limit ${page.limit} offset ${page.offset}
      )
      select m.matched, p.* from (select count(*)::int as matched from m) m
      left join lateral (
        select ${DOCUMENT_COLUMNS}, top.score, top.name_key from top join search_engine.documents d on d.ctid = top.row
      ) p on true
      order by p.score desc, p.name_key collate "C", p.record_id`.execute(this.db);
    const matched = Number(found.rows[0]?.matched ?? 0);
    return {
      hits: found.rows.filter((r) => r.record_id != null).map((r) => toHit(r as DocumentRow & { score: number })),
      matched: matched <= EXACT_COUNT ? matched : undefined,
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

  /**
   * The typo-tolerant fallback: names whose closest word run is similar to the query (pg_trgm word similarity at
   * its default threshold, 0.6), most similar first among the first `bound` similar names (one common word of the
   * query can make thousands of names similar). Scores are the similarity, halved: a guess never outranks what a
   * real match would have scored.
   */
  private async fuzzy(where: Fragment, text: string, query: SearchQuery, page: Page): Promise<SearchResult> {
    const probe = searchText(text);
    if (!probe) return { hits: [], ...exactly(0), fuzzy: false };
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
    const [found, total] = await Promise.all([rows.execute(this.db), this.count(similar, query.scope)]);
    return { hits: found.rows.map(toHit), ...total, fuzzy: total.total_estimate > 0 };
  }

  /** Exact up to EXACT_COUNT matches, estimated above (never beyond the documents of `scope`). */
  private async count(where: Fragment, scope: SearchScope): Promise<Total> {
    const n = await this.countUpTo(where);
    return n <= EXACT_COUNT ? exactly(n) : this.estimate(where, n, scope);
  }

  /** Matches counted up to EXACT_COUNT + 1. */
  private async countUpTo(where: Fragment): Promise<number> {
    const counted = await sql<{ n: number }>`${prepared}
      select count(*)::int as n from (select 1 from search_engine.documents d where ${where} limit ${EXACT_COUNT + 1}) m`.execute(
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
  private async estimate(where: Fragment, atLeast: number, scope: SearchScope): Promise<Total> {
    const percent = Math.min(100, Math.max(0.01, (100 * SAMPLE_PAGES) / (await this.tablePages())));
    const [sampled, inScope] = await Promise.all([
      sql<{ n: number }>`
        select count(*)::int as n from search_engine.documents d tablesample system (${percent}) repeatable (7)
        where ${where}`.execute(this.db),
      this.documentsIn(scope),
    ]);
    const scaled = Math.max(atLeast, Math.round((Number(sampled.rows[0]!.n) * 100) / percent));
    return { total_estimate: Math.min(inScope, scaled), total_is_estimate: true };
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

/** Candidates ranked per source when no explicit sort is asked for (see the class comment). */
const CANDIDATES = 1_000;
/** Candidates of a keyword query given the prior (keywordMatches()), the first by the cheap order. */
const KEYWORD_CANDIDATES = 300;
/** Candidates scored in full beyond the page's offset, the best by the prior (see candidates()). */
const POOL = 100;
/** The score of a base standard found by a query naming one of its editions (the edition itself scores 1.0). */
const EDITION_BASE_SCORE = 0.9;
/** Near words a query word is expanded to at most: the closest, so a common short word cannot flood the query. */
const MAX_TYPOS = 8;
/**
 * Trigram similarity that a word two typos from a query word of 9 or more letters reaches: two transpositions in an
 * 11-letter word leave 0.2 ("scerwdirver" and "screwdriver"). Lower only widens the candidates the distance check reads.
 */
const TWO_TYPO_SIMILARITY = 0.2;
/** Matches counted exactly up to this many, as Elasticsearch's default track_total_hits. */
const EXACT_COUNT = 10_000;
/** Listed matches up to this many are collected and sorted whole (see listed()). */
const SORTED_WHOLE = 1_000;
const SAMPLE_PAGES = 500;
/** Query words whose near words are kept (withTypos()), and for how long. */
const NEAR_WORDS_KEPT = 20_000;
const NEAR_WORDS_TTL_MS = 30_000;
/** Scopes whose document counts are kept (documentsIn()); the oldest goes first. */
const SCOPE_SIZES_KEPT = 1_000;

interface Page {
  limit: number;
  offset: number;
}

type Total = Pick<SearchResult, 'total_estimate' | 'total_is_estimate'>;

function exactly(n: number): Total {
  return { total_estimate: n, total_is_estimate: false };
}

/** A document as its row reads back: collection_data is stored as `data`, and a version may arrive as text. */
type DocumentRow = Omit<IndexDocument, 'collection_data' | 'version' | 'vocabulary'> & {
  data: Record<string, unknown>;
  version: number | string;
  vocabulary: string | null;
};

function rowToDocument(r: DocumentRow): IndexDocument {
  return {
    tenant_id: r.tenant_id,
    record_id: r.record_id,
    version: Number(r.version),
    collection: r.collection,
    record_type: r.record_type,
    generation: Number(r.generation),
    name: r.name,
    description: r.description,
    description_llm: r.description_llm,
    collection_data: r.data,
    source_type: r.source_type,
    status: r.status,
    visibility: r.visibility,
    updated_at: r.updated_at,
    ...(r.vocabulary === 'older' && { vocabulary: 'older' as const }),
  };
}

function toHit(r: DocumentRow & { score: number }): SearchHit {
  return { score: Math.min(1, Math.max(0, Number(r.score))), document: rowToDocument(r) };
}

/** The vocabulary a scope's queries expand their words from. */
function vocabularyKey(scope: SearchScope): string {
  return scope.kind === 'private' ? `p\u0000${scope.tenant_id}\u0000${scope.collection}` : `o\u0000${scope.collection ?? ''}`;
}

/**
 * A PostgreSQL array literal, so the planner sees the values (a subquery would hide them and make it guess that an
 * identifier matches half a percent of the table).
 */
function textArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
