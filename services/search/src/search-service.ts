import type { CountTally } from '@trove/bus';
import type { Cache } from '@trove/cache';
import { usagePeriodOf, withBothNames, type CollectionSettings, type PublicCollection, type SearchAnswer, type SearchResultItem } from '@trove/contracts';
import { ERRORS, type CacheResult, type FairScheduler, type Logger } from '@trove/platform';
import {
  classifyQuery,
  type AggregateResult,
  type Filter,
  type QueryType,
  type SearchEngine,
  type SearchQuery,
  type SearchResult,
  type SearchScope,
  type Sort,
} from '@trove/search-engine';
import type { Counter, Histogram } from 'prom-client';
import type { CollectionCheck } from './collection-check';
import { compactTable, yamlList } from './domain/format';
import type { HealthWindow } from './domain/health-window';
import { ResponseCache } from './response-cache';

export type Format = 'json' | 'compact' | 'yaml';
type SearchMode = SearchAnswer['metadata']['search_mode'];

export interface SearchRequest {
  scope: SearchScope;
  query?: string;
  filters: Filter[];
  /** As the client wrote it: a field name, `-` in front for descending. */
  sort?: string;
  limit: number;
  offset: number;
  format: Format;
  /** Count the total exactly up to 10,000 matches rather than 1,000 (SearchQuery.exact_total). */
  exact_total?: boolean;
  /** Highlight each result's matches between these tags (SearchQuery.highlight). */
  highlight?: SearchQuery['highlight'];
  /** Facets over every match (SearchQuery.facets). */
  facets?: SearchQuery['facets'];
  /** Each result says why it ranked where it did (SearchQuery.explain). */
  explain?: boolean;
}

/** What a route sends: a JSON body, or plain text for the compact and yaml formats. */
export type Rendered = { kind: 'json'; body: unknown } | { kind: 'json-text'; body: string } | { kind: 'text'; body: string };

export interface AggregateRequest {
  scope: SearchScope;
  filters: Filter[];
  group_by?: string;
  stats?: string[];
}

export interface SearchServiceOptions {
  engine: SearchEngine;
  cache: Cache;
  cacheTtlMs: number;
  /** SEARCH_STATEMENT_TIMEOUT_MS, for the answer to a statement cancelled after it. */
  statementTimeoutMs: number;
  health: HealthWindow;
  /** Search latency by query type (`none` for a search without a query), mode and cache outcome. */
  latency: Histogram<'query_type' | 'mode' | 'cache'>;
  /** Searches that found nothing, by query type. */
  zeroResults: Counter<'query_type'>;
  /** Counts each lookup of the response cache. */
  cacheLookups?: (result: CacheResult) => void;
  logger: Logger;
  /** Counts each answered private search (usage.events); Open's public searches are counted by open. */
  usage: Pick<CountTally, 'count'>;
  /**
   * Shares the engine between tenants: what a cached answer cannot give runs as a job of the scope's tenant (the
   * public index's as one key: the Open API shares it out by client address itself).
   */
  scheduler: Pick<FairScheduler, 'run'>;
  /** Whether a tenant has a collection (records'), asked when a private search found nothing. */
  collectionExists: CollectionCheck;
  /**
   * A tenant collection's search settings (store/settings-store.ts), read for each private search the cache does not
   * answer: a change is seen by the next search in every process. Absent: the defaults.
   */
  settingsOf?: (tenant_id: string, collection: string) => Promise<CollectionSettings>;
}

/** Whose turn an engine call of the scope takes. */
function shareOf(scope: SearchScope): string {
  return scope.kind === 'private' ? scope.tenant_id : 'public';
}

/** Sort values that mean "by relevance", the default order. */
const RELEVANCE = new Set(['score', '-score', '_score', 'relevance']);

/**
 * Private (and public) search as docs/behaviour/search.md describes it: classify the query, search the engine, fall
 * back from an identifier to full text and from query plus filters to filters alone, render the chosen format. Answers
 * are cached for the configured time under the scope's cache version, which the indexer raises on every change
 * (ResponseCache).
 */
export class SearchService {
  private readonly responses: ResponseCache<Summary>;

  constructor(private readonly opts: SearchServiceOptions) {
    this.responses = new ResponseCache({ cache: opts.cache, ttlMs: opts.cacheTtlMs, logger: opts.logger, lookups: opts.cacheLookups });
  }

  async search(req: SearchRequest): Promise<Rendered> {
    const started = performance.now();
    const found = await this.responses.answer(
      req.scope,
      { op: 'search', ...req },
      async () => this.withCollectionFacts(req.scope, await this.opts.scheduler.run(shareOf(req.scope), () => this.searchUncached(req, started))),
      summaryOf,
    );
    if (found.text !== undefined && req.format === 'json') {
      // The hot path: the stored text goes out as it is, with only the two per-answer fields rewritten (an answer
      // just computed and stored is not serialised again; one that was stored answered a search, not an error).
      const ms = round(performance.now() - started);
      this.observe(req, found.hit ? (found.note ?? summaryOf(JSON.parse(found.text) as StoredAnswer)) : summaryOf(found.value), ms, found.hit);
      this.countUsage(req.scope);
      return { kind: 'json-text', body: withAnswerFieldsText(found.text, found.hit, ms) };
    }
    const stored = found.hit ? (JSON.parse(found.text) as StoredAnswer) : found.value;
    const body = withAnswerFields(stored, found.hit, round(performance.now() - started));
    this.observe(req, summaryOf(body), body.metadata.processing_time_ms, found.hit);
    // A search the engine failed to answer is not billed.
    if (body.metadata.search_mode !== 'error') this.countUsage(req.scope);
    return render(body, req);
  }

  /** A search's JSON answer as an object (a multi-search assembles several), cached and counted as search() does. */
  async searchAnswer(req: SearchRequest): Promise<SearchAnswer> {
    const rendered = await this.search({ ...req, format: 'json' });
    return (rendered.kind === 'json-text' ? JSON.parse(rendered.body) : rendered.body) as SearchAnswer;
  }

  async aggregate(req: AggregateRequest): Promise<AggregateResult> {
    const found = await this.responses.answer(req.scope, { op: 'aggregate', ...req }, async () => ({
      value: await this.opts.scheduler.run(shareOf(req.scope), () =>
        this.opts.engine
          .aggregate({ scope: req.scope, filters: req.filters, group_by: req.group_by, stats: req.stats })
          .catch((err: unknown) => {
            throw this.tooLong(err) ?? err;
          }),
      ),
      store: true,
    }));
    return found.hit ? (JSON.parse(found.text) as AggregateResult) : found.value;
  }

  /** The public index's collections, grouped across tenants, each with its record types sorted by name. */
  async publicCollections(): Promise<PublicCollection[]> {
    const scope: SearchScope = { kind: 'public' };
    const found = await this.responses.answer(scope, { op: 'collections' }, async () => ({
      value: (await this.opts.scheduler.run(shareOf(scope), () => this.opts.engine.publicCollections([]))).map((c) => ({
        collection: c.collection,
        record_count: c.count,
        record_types: c.record_types.map((t) => t.value).sort(),
      })),
      store: true,
    }));
    return found.hit ? (JSON.parse(found.text) as PublicCollection[]) : found.value;
  }

  /**
   * An answer that found nothing says whether its collection exists (docs/behaviour/search.md, "A collection that does
   * not exist"), asked after the engine's turn so a slow answer from records never holds one. It is cached with the
   * answer: the first record indexed into the collection changes the scope's cache version.
   */
  private async withCollectionFacts(scope: SearchScope, found: { value: StoredAnswer; store: boolean }): Promise<{ value: StoredAnswer; store: boolean }> {
    const { metadata } = found.value;
    if (metadata.total_estimate > 0 || metadata.search_mode === 'error') return found;
    const exists = await this.collectionExists(scope);
    if (exists === undefined) return found;
    const facts = exists || scope.kind === 'public' ? { collection_exists: exists } : { collection_exists: false, hint: missingCollectionHint(scope.collection) };
    return { ...found, value: { ...found.value, metadata: { ...metadata, ...facts } } };
  }

  /** Private: records' answer. Public: whether the index holds a public record of the collection (its one source). */
  private async collectionExists(scope: SearchScope): Promise<boolean | undefined> {
    if (scope.kind === 'private') return this.opts.collectionExists(scope.tenant_id, scope.collection);
    if (scope.collection === undefined) return undefined;
    try {
      const any = await this.opts.scheduler.run(shareOf(scope), () => this.opts.engine.search({ scope, filters: [], limit: 1, offset: 0 }));
      return any.hits.length > 0;
    } catch (err) {
      this.opts.logger.warn({ err, collection: scope.collection }, 'could not tell whether a public collection exists');
      return undefined;
    }
  }

  private async searchUncached(req: SearchRequest, started: number): Promise<{ value: StoredAnswer; store: boolean }> {
    const classified = req.query !== undefined ? classifyQuery(req.query) : undefined;
    const classifyMs = performance.now() - started;
    // Settings shape full text only: a search without text, or one for an identifier, reads none (unless it falls back
    // to full text).
    const scope = req.scope;
    const settingsOf = async (): Promise<Pick<SearchQuery, 'settings'>> => {
      const settings = scope.kind === 'private' ? await this.opts.settingsOf?.(scope.tenant_id, scope.collection) : undefined;
      return settings ? { settings } : {};
    };
    const base: SearchQuery = {
      scope: req.scope,
      filters: req.filters,
      sort: sortOf(req.sort),
      limit: req.limit,
      offset: req.offset,
      exact_total: req.exact_total,
      highlight: req.highlight,
      facets: req.facets,
      explain: req.explain,
    };

    let mode: SearchMode;
    let result: SearchResult;
    let fallback = false;
    try {
      if (!classified) {
        mode = 'filtered';
        result = await this.opts.engine.search(base);
      } else {
        mode = classified.type === 'identifier' ? 'identifier' : 'fulltext';
        const settings = classified.type === 'identifier' ? {} : await settingsOf();
        result = await this.opts.engine.search({ ...base, ...settings, text: { type: classified.type, query: req.query!, identifiers: classified.identifiers } });
        if (result.total_estimate === 0 && classified.type === 'identifier') {
          // Something that looks like an identifier but is none we hold may still be words in a name.
          mode = 'fulltext';
          result = await this.opts.engine.search({ ...base, ...(await settingsOf()), text: { type: 'keyword', query: req.query!, identifiers: [] } });
        }
        if (result.total_estimate === 0 && req.filters.length > 0) {
          mode = 'filtered';
          fallback = true;
          result = await this.opts.engine.search(base);
        }
      }
    } catch (err) {
      const tooLong = this.tooLong(err);
      if (tooLong) throw tooLong;
      this.opts.logger.error({ err }, 'search engine failed');
      return { value: errorBody(req, classified?.type), store: false };
    }
    const searched = performance.now();
    const results = result.hits.map(({ score, document: d, highlights, ranking }) => {
      const item: SearchResultItem = {
        record_id: d.record_id,
        name: d.name,
        score: round(score, 4),
        collection: d.collection,
        record_type: d.record_type,
        collection_data: d.collection_data,
        description_llm: d.description_llm,
        description: d.description,
        source_type: d.source_type,
        updated_at: d.updated_at,
        ...(highlights && { highlights }),
        // The score's total as the result's score is rounded.
        ...(ranking && { ranking: { ...ranking, score: { ...ranking.score, total: round(score, 4) } } }),
      };
      // A collection first created through the older vocabulary answers its clients in both (docs/behaviour/older-vocabulary.md).
      return d.vocabulary === 'older' ? withBothNames(item) : item;
    });
    const body: StoredAnswer = {
      results,
      pagination: { offset: req.offset, limit: req.limit, has_more: req.offset + results.length < result.total_estimate },
      // Before metadata, which an answer's text must end with (withAnswerFieldsText()).
      ...(result.facets && { facets: result.facets }),
      metadata: {
        search_mode: mode,
        query_type: classified?.type ?? 'keyword',
        total_estimate: result.total_estimate,
        total_is_estimate: result.total_is_estimate,
        zero_result_fallback_used: fallback,
        timings: { classify_ms: round(classifyMs), search_ms: round(searched - started - classifyMs), hydrate_ms: round(performance.now() - searched) },
      },
    };
    return { value: body, store: true };
  }

  /**
   * The answer to a statement the database cancelled at SEARCH_STATEMENT_TIMEOUT_MS (SQLSTATE 57014): 503 saying the
   * query was too expensive, rather than a connection held for as long as it would have taken.
   */
  private tooLong(err: unknown): Error | undefined {
    if ((err as { code?: unknown } | null)?.code !== '57014') return undefined;
    const seconds = Math.round(this.opts.statementTimeoutMs / 100) / 10;
    this.opts.logger.warn({ timeoutMs: this.opts.statementTimeoutMs }, 'a search statement was cancelled at the statement timeout');
    return ERRORS.unavailable(
      `The search took longer than ${seconds} s and was stopped; narrow the query or add filters, or try again when the system is less busy.`,
    );
  }

  private countUsage(scope: SearchScope): void {
    if (scope.kind === 'private') this.opts.usage.count(scope.tenant_id, usagePeriodOf(new Date()));
  }

  /** Records a search answered: its latency and whether it found nothing (metrics), and the health window. */
  private observe(req: SearchRequest, summary: Summary, ms: number, hit: boolean): void {
    const queryType = req.query === undefined ? 'none' : summary.queryType;
    this.opts.latency.observe({ query_type: queryType, mode: summary.mode, cache: hit ? 'hit' : 'miss' }, ms / 1000);
    if (summary.zeroResults) this.opts.zeroResults.inc({ query_type: queryType });
    this.opts.health.record({ ms, zeroResults: summary.zeroResults, fallback: summary.fallback });
  }
}

/** What the health window needs of a search answer, kept beside a cached one so a hit need not parse it. */
interface Summary {
  mode: SearchMode;
  queryType: QueryType;
  zeroResults: boolean;
  fallback: boolean;
}

function summaryOf(body: StoredAnswer): Summary {
  return { mode: body.metadata.search_mode, queryType: body.metadata.query_type, zeroResults: body.results.length === 0, fallback: body.metadata.zero_result_fallback_used };
}

/** What each answer says of itself, not stored with it: whether it came from the cache, and how long it took. */
type AnswerFields = 'processing_time_ms' | 'cache_hit';

/** A search answer as computed and cached: everything but its AnswerFields, with metadata its last key. */
type StoredAnswer = Omit<SearchAnswer, 'metadata'> & { metadata: Omit<SearchAnswer['metadata'], AnswerFields> };

/** The answer with this request's AnswerFields, added last to its metadata. */
function withAnswerFields(stored: StoredAnswer, hit: boolean, ms: number): SearchAnswer {
  return { ...stored, metadata: { ...stored.metadata, processing_time_ms: ms, cache_hit: hit } };
}

/**
 * The same for a stored answer's JSON text, without parsing it: metadata is the answer's last key and an object, so
 * the text ends with the two braces that close metadata and the answer, and the fields go just before them.
 */
function withAnswerFieldsText(stored: string, hit: boolean, ms: number): string {
  return `${stored.slice(0, -2)},"processing_time_ms":${ms},"cache_hit":${hit}}}`;
}

function sortOf(sort: string | undefined): Sort | undefined {
  if (sort === undefined || RELEVANCE.has(sort)) return undefined;
  return sort.startsWith('-') ? { field: sort.slice(1), direction: 'desc' } : { field: sort, direction: 'asc' };
}

function errorBody(req: SearchRequest, queryType: QueryType | undefined): StoredAnswer {
  return {
    results: [],
    pagination: { offset: req.offset, limit: req.limit, has_more: false },
    metadata: {
      search_mode: 'error',
      query_type: queryType ?? 'keyword',
      total_estimate: 0,
      total_is_estimate: false,
      zero_result_fallback_used: false,
      timings: { classify_ms: 0, search_ms: 0, hydrate_ms: 0 },
    },
  };
}

/** What an empty private answer says when the tenant has no collection of the name searched. */
function missingCollectionHint(collection: string): string {
  return (
    `There is no collection "${collection}": none of your records is in it (collection names are case-sensitive). ` +
    'GET /api/v1/collections lists your collections (GET /api/v1/portal/collections in the portal).'
  );
}

function render(body: SearchAnswer, req: SearchRequest): Rendered {
  const { total_estimate: total, hint } = body.metadata;
  if (req.format === 'compact') return { kind: 'text', body: compactTable(body.results, req.offset, total, hint) };
  if (req.format === 'yaml') return { kind: 'text', body: yamlList(body.results, hint) };
  return { kind: 'json', body };
}

function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
