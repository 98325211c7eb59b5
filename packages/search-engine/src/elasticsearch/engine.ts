import { Client, errors, type estypes } from '@elastic/elasticsearch';
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
import { heldStateOf, lookupsOf, outcomesOf, planBulk, reasonOf, type HeldState } from './bulk';
import { documentMappings, generationMappings, indexesOf, indexTemplates, type Indexes } from './mappings';
import { explainMatches, foundBy, SCORE_PART } from '../explain';
import { withHighlights } from '../highlight';
import { rulesOf } from '../terms';
import {
  aggregateRequest,
  aggregateResult,
  collectionsRequest,
  collectionsResult,
  fuzzyQuery,
  modeOf,
  searchRequest,
  searchResult,
  type SearchMode,
} from './queries';
import { generationId, type StoredDocument } from './source';

export interface ElasticsearchEngineOptions {
  /** ELASTICSEARCH_URL. */
  node: string;
  /** Prefix of the index and template names (default `trove`); separate prefixes keep deployments on one cluster apart. */
  indexPrefix?: string;
  /** A client configured elsewhere (authentication, TLS, tests); built from `node` when omitted. The engine closes it. */
  client?: Client;
}

/**
 * Generation swaps copy and delete whole collections server-side; they may outlast the client's default 30 s request
 * timeout, and are safe to repeat if one is cut off.
 */
const MAINTENANCE_TIMEOUT_MS = 10 * 60_000;

/**
 * The scaled adapter: Elasticsearch 8. Layout and field meanings are in mappings.ts; how a batch becomes one bulk
 * request in bulk.ts; how queries are built and hits scored in queries.ts.
 */
export class ElasticsearchEngine implements SearchEngine {
  readonly kind = 'elasticsearch' as const;
  readonly indexes: Indexes;
  private readonly client: Client;

  constructor(opts: ElasticsearchEngineOptions) {
    this.client = opts.client ?? new Client({ node: opts.node });
    this.indexes = indexesOf(opts.indexPrefix ?? 'trove');
  }

  async init(): Promise<void> {
    for (const template of indexTemplates(this.indexes)) await this.client.indices.putIndexTemplate(template);
    await this.createIndex(this.indexes.records, documentMappings);
    await this.createIndex(this.indexes.public, documentMappings);
    await this.createIndex(this.indexes.generations, generationMappings);
  }

  /**
   * Creates the index from its template, or, when it exists (another replica, an earlier version), adds fields the
   * mapping gained since; a changed field type fails here rather than at the first write.
   */
  private async createIndex(index: string, mappings: estypes.MappingTypeMapping): Promise<void> {
    try {
      await this.client.indices.create({ index });
    } catch (error) {
      if (errorType(error) !== 'resource_already_exists_exception') throw error;
      await this.client.indices.putMapping({ index, ...mappings });
    }
  }

  async apply(changes: IndexChange[]): Promise<ApplyOutcome[]> {
    if (changes.length === 0) return [];
    const lookups = lookupsOf(changes, this.indexes);
    const held: HeldState =
      lookups.length === 0
        ? { documents: new Map(), generations: new Map() }
        : heldStateOf(await this.client.mget<Record<string, unknown>>({ docs: lookups, realtime: true }), this.indexes);
    const plan = planBulk(changes, held, this.indexes);
    const response =
      plan.actions.length === 0
        ? undefined
        : await this.client.bulk({ operations: plan.operations, refresh: 'wait_for' });
    const outcomes = outcomesOf(changes, plan, response);
    // The generation is recorded last: if anything before fails, the next delivery sees the raise again and redoes it.
    for (const raise of plan.raises) {
      await this.publishGeneration(raise.tenant_id, raise.collection, raise.generation);
      await this.recordGeneration(raise.tenant_id, raise.collection, raise.generation);
    }
    return outcomes;
  }

  /**
   * A swap never lowers the active generation: a late swap to an older generation settles on the newer one. Every
   * step is repeatable, so a swap cut off half-way is completed by its redelivery.
   */
  async swapGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    const held = await this.activeGeneration(tenant_id, collection);
    const active = held === undefined ? generation : Math.max(held, generation);
    await this.publishGeneration(tenant_id, collection, active);
    await this.recordGeneration(tenant_id, collection, active);
    const result = await this.client.deleteByQuery(
      {
        index: this.indexes.records,
        routing: tenant_id,
        query: { bool: { filter: [...collectionFilter(tenant_id, collection), { range: { generation: { lt: active } } }] } },
        conflicts: 'proceed',
        refresh: true,
      },
      { requestTimeout: MAINTENANCE_TIMEOUT_MS },
    );
    throwOnFailures('removing older generations', result.failures);
  }

  /**
   * Makes the public index hold exactly the collection's searchable public documents of `generation`: copies them from
   * the records index (keeping their versions, so a newer copy already there is left alone), then deletes the public
   * documents of older generations. Copying first means public searches never see the collection empty.
   */
  private async publishGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    const copied = await this.client.reindex(
      {
        source: {
          index: this.indexes.records,
          query: {
            bool: {
              filter: [
                ...collectionFilter(tenant_id, collection),
                { term: { generation } },
                { term: { status: 'active' } },
                { term: { visibility: 'public' } },
              ],
            },
          },
        },
        dest: { index: this.indexes.public, version_type: 'external' },
        conflicts: 'proceed',
        refresh: true,
      },
      { requestTimeout: MAINTENANCE_TIMEOUT_MS },
    );
    throwOnFailures('publishing the active generation', copied.failures);
    const deleted = await this.client.deleteByQuery(
      {
        index: this.indexes.public,
        routing: tenant_id,
        query: { bool: { filter: [...collectionFilter(tenant_id, collection), { range: { generation: { lt: generation } } }] } },
        conflicts: 'proceed',
        refresh: true,
      },
      { requestTimeout: MAINTENANCE_TIMEOUT_MS },
    );
    throwOnFailures('unpublishing older generations', deleted.failures);
  }

  /** The generation is its own external version, so concurrent raises keep the highest without a read. */
  private async recordGeneration(tenant_id: string, collection: string, generation: number): Promise<void> {
    try {
      await this.client.index({
        index: this.indexes.generations,
        id: generationId(tenant_id, collection),
        version: generation,
        version_type: 'external',
        document: { tenant_id, collection, active_generation: generation },
        refresh: true,
      });
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
  }

  private async activeGeneration(tenant_id: string, collection: string): Promise<number | undefined> {
    try {
      const doc = await this.client.get<{ active_generation?: number }>({
        index: this.indexes.generations,
        id: generationId(tenant_id, collection),
      });
      return doc._source?.active_generation;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const mode = modeOf(query);
    if (mode === 'nothing') {
      const facets = query.facets && Object.fromEntries(query.facets.fields.map((field) => [field, { values: [] }]));
      return { hits: [], total_estimate: 0, total_is_estimate: false, fuzzy: false, ...(facets && { facets }) };
    }
    const found = await this.find(query, mode);
    const hits = withHighlights(found.hits, query);
    return { ...found, hits: query.explain ? explained(hits, query, found.fuzzy) : hits };
  }

  /** The page, total and facets of a listed or ranked search, or of its typo-tolerant fallback when it found nothing. */
  private async find(query: SearchQuery, mode: SearchMode): Promise<SearchResult> {
    const result = searchResult(await this.client.search<Partial<StoredDocument>>(searchRequest(query, this.indexes)), mode, query);
    // Typo tolerance turned off for the collection: no typo-tolerant fallback either.
    const rules = rulesOf(query.settings);
    // No typo-tolerant fallback (it guesses by name) where typos are off, or off on names.
    if (mode !== 'ranked' || result.total_estimate > 0 || !query.text || !fuzzyQuery(query.text) || !rules.typos || rules.fields.typedOnly.name) return result;
    const fuzzy = searchRequest(query, this.indexes, true);
    return searchResult(await this.client.search<Partial<StoredDocument>>(fuzzy), 'fuzzy', query);
  }

  async aggregate(query: AggregateQuery): Promise<AggregateResult> {
    return aggregateResult(query, await this.client.search(aggregateRequest(query, this.indexes)));
  }

  async publicCollections(filters: Filter[]): Promise<CollectionGroup[]> {
    return collectionsResult(await this.client.search(collectionsRequest(filters, this.indexes)));
  }

  async ping(): Promise<void> {
    if (!(await this.client.ping())) throw new Error('Elasticsearch did not answer the ping');
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * The hits with why each ranked where it did: what of the query it holds (explain.ts, as the PostgreSQL engine says
 * it) and its score, Elasticsearch's BM25 normalised (queries.ts), which has no parts of its own to show.
 */
function explained(hits: SearchHit[], query: SearchQuery, fuzzy: boolean): SearchHit[] {
  const matchedBy = foundBy(query, fuzzy);
  const part = SCORE_PART[matchedBy];
  return hits.map((hit) => ({
    ...hit,
    ranking: { matched_by: matchedBy, ...explainMatches(hit.document, query), score: { total: hit.score, parts: { [part]: { share: 1, weight: hit.score } } } },
  }));
}

function collectionFilter(tenant_id: string, collection: string): estypes.QueryDslQueryContainer[] {
  return [{ term: { tenant_id } }, { term: { collection } }];
}

function statusOf(error: unknown): number | undefined {
  return error instanceof errors.ResponseError ? error.statusCode : undefined;
}

function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.body as { error?: { type?: string } } | undefined;
  return body?.error?.type;
}

function throwOnFailures(what: string, failures: estypes.BulkIndexByScrollFailure[] | undefined): void {
  if (failures && failures.length > 0) {
    throw new Error(`${what} failed: ${failures.map((f) => reasonOf(f.cause)).join('; ')}`);
  }
}
