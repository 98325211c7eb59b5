import type { AggregateAnswer, OpenCollection, OpenResultItem, OpenSearchAnswer, PublicAggregateRequest, PublicSearchRequest, RecordDto } from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import { generatedDescription, matchesQuery } from './domain/collections';
import { filterableFields } from './domain/fields';
import type { SearchCounter } from './search-counter';
import type { PublicIndex } from './public-index';

/** Records sampled to infer a collection's fields (the internal search's largest page). */
const SCHEMA_SAMPLE = 100;

/**
 * The Open API over the shared public index. Hits come from the search service as the index holds them, and only those
 * the records service says are public and searchable at that moment are shown (one batched check of their ids): a
 * record made private is gone from every answer at once, even while an index still holds it. A lookup loads the record
 * itself from the records service.
 */
export class OpenService {
  constructor(private readonly deps: { upstreams: PublicIndex; counter: SearchCounter }) {}

  async search(req: PublicSearchRequest & { limit: number; offset: number }, requestId?: string): Promise<OpenSearchAnswer> {
    const started = performance.now();
    const { upstreams, counter } = this.deps;
    const answer = await upstreams.search(req, requestId);
    const tenants = await upstreams.publicVisible(
      answer.results.map((h) => h.record_id),
      requestId,
    );
    const visible = answer.results.filter((h) => tenants.has(h.record_id));
    const results = visible.map(({ description: _description, ...item }): OpenResultItem => item);
    counter.count(visible.map((h) => ({ tenant_id: tenants.get(h.record_id)!, collection: h.collection })));
    const hidden = answer.results.length - visible.length;
    return {
      results,
      // Paging follows the index, so a page thinned by hidden records never ends the listing early.
      pagination: { offset: req.offset, limit: req.limit, has_more: req.offset + answer.results.length < answer.metadata.total_estimate },
      // Over every match in the public index, as total_estimate is.
      ...(answer.facets && { facets: answer.facets }),
      metadata: {
        search_mode: answer.metadata.search_mode === 'error' ? 'error' : 'fulltext',
        processing_time_ms: Math.round((performance.now() - started) * 100) / 100,
        total_estimate: Math.max(req.offset + results.length, answer.metadata.total_estimate - hidden),
        total_is_estimate: answer.metadata.total_is_estimate,
        cache_hit: answer.metadata.cache_hit,
        ...collectionFacts(req.collection, answer.metadata.collection_exists),
      },
    };
  }

  aggregate(req: PublicAggregateRequest, requestId?: string): Promise<AggregateAnswer> {
    return this.deps.upstreams.aggregate(req, requestId);
  }

  /** Every collection with public records, grouped by name across tenants, largest first (the index's top 50). */
  async collections(q: string | undefined, requestId?: string): Promise<OpenCollection[]> {
    const listed = await this.deps.upstreams.collections(requestId);
    return listed
      .map((c) => openCollection(c.collection, c.record_count, c.record_types))
      .filter((c) => matchesQuery(c, q))
      .sort((a, b) => b.record_count - a.record_count || (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : 0));
  }

  /** A collection with the fields its public records can be filtered on; 404 when it has no public records. */
  async schema(collection: string, requestId?: string): Promise<OpenCollection & { filterable_fields: string[] }> {
    const { upstreams } = this.deps;
    const [types, sample] = await Promise.all([
      upstreams.aggregate({ collection, group_by: 'record_type' }, requestId),
      upstreams.search({ collection, limit: SCHEMA_SAMPLE, offset: 0 }, requestId),
    ]);
    if (types.total === 0) throw ERRORS.notFound(`Collection '${collection}' not found or has no public records`);
    const visible = await upstreams.publicVisible(
      sample.results.map((h) => h.record_id),
      requestId,
    );
    const recordTypes = types.groups.map((g) => String(g.value)).sort();
    const sampled = sample.results.filter((h) => visible.has(h.record_id)).map((h) => h.collection_data);
    return { ...openCollection(collection, types.total, recordTypes), filterable_fields: filterableFields(sampled) };
  }

  /** The full public record; a private, archived or missing one is the same 404. */
  async record(id: string, requestId?: string): Promise<Omit<RecordDto, 'tenant_id' | 'version'>> {
    const found = (await this.deps.upstreams.publicRecords([id], requestId)).get(id);
    if (!found) throw ERRORS.notFound('Record not found');
    const { tenant_id: _tenant, version: _version, ...shown } = found;
    return shown;
  }
}

/**
 * What an Open answer that found nothing in a named collection says of it (docs/behaviour/open-api.md): whether any
 * public record is in it, and if none, where the public collections are listed. Search says it only of such answers.
 */
function collectionFacts(collection: string | undefined, exists: boolean | undefined): Pick<OpenSearchAnswer['metadata'], 'collection_exists' | 'hint'> {
  if (collection === undefined || exists === undefined) return {};
  if (exists) return { collection_exists: true };
  return {
    collection_exists: false,
    hint: `No public record is in a collection "${collection}" (collection names are case-sensitive); GET /open/v1/collections lists the collections with public records.`,
  };
}

function openCollection(collection: string, recordCount: number, recordTypes: string[]): OpenCollection {
  return { collection, record_types: recordTypes, record_count: recordCount, description: generatedDescription(collection, recordCount, recordTypes) };
}
