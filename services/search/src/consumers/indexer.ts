import type { DeliveredEvent, EventBus, OutgoingEvent, Subscription } from '@trove/bus';
import type { Cache } from '@trove/cache';
import {
  SEARCH_INDEXER_GROUP,
  TOPICS,
  recordChangedEvent,
  type RecordChangedEvent,
  type RecordDto,
  type RecordIndexedEvent,
  type RecordsIndexedEvent,
  type SwapAcknowledgement,
  type VocabularyName,
} from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { IndexChange, IndexDocument, SearchEngine } from '@trove/search-engine';
import type { Histogram } from 'prom-client';
import { cacheNamespace } from '../response-cache';
import type { UpsertChange } from '../store/pipeline-jobs';

const BATCH_SIZE = 1_000;

/**
 * Changes given to the engine in one apply (one transaction) at most. A delivered batch of a thousand changes is
 * applied in several: on the embedded default the database is one connection that every tenant's requests wait for,
 * and one apply holds it for as long as it runs (about a second for a thousand documents on PGlite).
 */
const APPLY_SLICE = 200;

export interface IndexerDeps {
  engine: SearchEngine;
  cache: Cache;
  bus: EventBus;
  logger: Logger;
  /** Where upserts marked for the older pipeline go (PipelineWorker). */
  pipeline: { enqueue(changes: UpsertChange[]): Promise<void> };
  /** Observes, per change applied, the time from its publication to its being searchable (settled). */
  indexingLag?: Histogram;
}

/**
 * What a batch of applied changes leaves to do, in this order: raise the cache versions of every touched scope, then
 * acknowledge the versions on records.indexed, one event per tenant. A write whose acknowledgement a client has seen
 * is therefore searchable and no cached answer from before it is served.
 */
export async function settle(cache: Cache, bus: EventBus, namespaces: Iterable<string>, acks: RecordIndexedEvent[], swaps: SwapAcknowledgement[] = []): Promise<void> {
  await Promise.all([...new Set(namespaces)].map((ns) => cache.bump(ns)));
  await acknowledge(bus, acks, swaps);
}

/** Publishes acknowledgements (and swaps applied) on records.indexed, one event per tenant. */
export async function acknowledge(bus: EventBus, acks: RecordIndexedEvent[], swaps: SwapAcknowledgement[] = []): Promise<void> {
  if (acks.length === 0 && swaps.length === 0) return;
  const byTenant = new Map<string, { acks: RecordIndexedEvent[]; swaps: SwapAcknowledgement[] }>();
  const of = (tenant: string) => {
    let entry = byTenant.get(tenant);
    if (!entry) byTenant.set(tenant, (entry = { acks: [], swaps: [] }));
    return entry;
  };
  for (const ack of acks) of(ack.tenant_id).acks.push(ack);
  for (const swap of swaps) of(swap.tenant_id).swaps.push(swap);
  const out: OutgoingEvent[] = [...byTenant].map(([tenant, entry]) => ({
    topic: TOPICS.recordsIndexed,
    key: tenant,
    payload: (entry.swaps.length > 0 ? entry : { acks: entry.acks }) satisfies RecordsIndexedEvent,
  }));
  await bus.publish(out);
}

/** The cache namespaces an upsert touches: its collection's, and the public index's when the record is public. */
export function upsertNamespaces(document: Pick<IndexDocument, 'tenant_id' | 'collection' | 'visibility'>): string[] {
  const own = cacheNamespace({ kind: 'private', tenant_id: document.tenant_id, collection: document.collection });
  return document.visibility === 'public' ? [own, cacheNamespace({ kind: 'public' })] : [own];
}

/**
 * Keeps the engine in step with records.changed. Per delivered batch: the changes go to the engine in one apply
 * (the newest version of each record only), generation swaps in their place in the order; then the batch settles
 * (settle), the swaps acknowledged too (records answers a swap once search serves it). Redelivery is harmless: the engine ignores versions it already holds and reports them indexed, so they
 * are acknowledged again. An upsert marked for the older pipeline (the newest of its record in the batch) is queued
 * as a job instead (pipeline-worker.ts), which acknowledges it itself.
 */
export function indexerHandler({ engine, cache, bus, logger, pipeline, indexingLag }: IndexerDeps) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    const namespaces = new Set<string>();
    /** When each change applied here (not queued for the pipeline) was published. */
    const published: string[] = [];
    const acks: RecordIndexedEvent[] = [];
    const swaps: SwapAcknowledgement[] = [];
    let pending = new Map<string, { change: IndexChange; tenant: string; pipeline: boolean }>();

    const flush = async () => {
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      const queued = batch.filter((b) => b.pipeline).map((b) => b.change as UpsertChange);
      const applied = batch.filter((b) => !b.pipeline);
      if (queued.length > 0) await pipeline.enqueue(queued);
      if (applied.length === 0) return;
      const outcomes = [];
      for (let i = 0; i < applied.length; i += APPLY_SLICE) {
        outcomes.push(...(await engine.apply(applied.slice(i, i + APPLY_SLICE).map((b) => b.change))));
      }
      outcomes.forEach((o, i) => {
        const tenant = applied[i]!.tenant;
        acks.push({ tenant_id: tenant, record_id: o.record_id, version: o.version, status: o.status, ...(o.error ? { error: o.error } : {}) });
        if (o.status === 'failed') logger.warn({ recordId: o.record_id, version: o.version, error: o.error }, 'indexing failed');
      });
    };

    for (const event of events) {
      const parsed = recordChangedEvent.safeParse(event.payload);
      if (!parsed.success) {
        // A malformed event would fail the same way on every delivery; skipping it keeps the group moving.
        logger.warn({ offset: event.offset, key: event.key, issues: parsed.error.issues }, 'skipping malformed records.changed event');
        continue;
      }
      const e = parsed.data;
      if (e.kind === 'generation_swapped') {
        await flush();
        await engine.swapGeneration(e.tenant_id, e.collection, e.new_generation);
        namespaces.add(cacheNamespace({ kind: 'private', tenant_id: e.tenant_id, collection: e.collection }));
        namespaces.add(cacheNamespace({ kind: 'public' }));
        swaps.push({ tenant_id: e.tenant_id, collection: e.collection, generation: e.new_generation });
        continue;
      }
      const change = toChange(e);
      const previous = pending.get(e.record_id);
      const queued = e.kind === 'upserted' && e.pipeline === true;
      if (!previous || versionOf(previous.change) < e.version) pending.set(e.record_id, { change, tenant: e.tenant_id, pipeline: queued });
      if (queued) continue;
      published.push(event.publishedAt);
      const collection = e.kind === 'deleted' ? e.collection : e.record.collection;
      namespaces.add(cacheNamespace({ kind: 'private', tenant_id: e.tenant_id, collection }));
      if (mayTouchPublic(e)) namespaces.add(cacheNamespace({ kind: 'public' }));
    }
    await flush();
    await settle(cache, bus, namespaces, acks, swaps);
    if (indexingLag) {
      const now = Date.now();
      for (const at of published) {
        const ms = now - Date.parse(at);
        if (ms >= 0) indexingLag.observe(ms / 1000);
      }
    }
  };
}

export function subscribeIndexer(deps: IndexerDeps): Promise<Subscription> {
  return deps.bus.subscribe({ group: SEARCH_INDEXER_GROUP, topics: [TOPICS.recordsChanged], handler: indexerHandler(deps), maxBatchSize: BATCH_SIZE });
}

function toChange(e: Exclude<RecordChangedEvent, { kind: 'generation_swapped' }>): IndexChange {
  if (e.kind === 'deleted') return { op: 'remove', tenant_id: e.tenant_id, record_id: e.record_id, version: e.version };
  return { op: 'upsert', document: toDocument(e.record, e.collection_vocabulary), active_generation: e.active_generation ?? e.record.generation };
}

export function toDocument(r: RecordDto, vocabulary?: VocabularyName): IndexDocument {
  return {
    tenant_id: r.tenant_id,
    record_id: r.id,
    version: r.version,
    collection: r.collection,
    record_type: r.record_type,
    generation: r.generation,
    name: r.name,
    description: r.description,
    description_llm: r.description_llm,
    collection_data: r.collection_data,
    source_type: r.source_type,
    status: r.status,
    visibility: r.visibility,
    updated_at: r.updated_at,
    ...(vocabulary === 'older' && { vocabulary }),
  };
}

function versionOf(change: IndexChange): number {
  return change.op === 'remove' ? change.version : change.document.version;
}

/** Whether the change can add a record to the public index, change one in it, or take one out. */
function mayTouchPublic(e: Exclude<RecordChangedEvent, { kind: 'generation_swapped' }>): boolean {
  return e.kind !== 'upserted' || e.record.visibility === 'public';
}
