import { randomUUID } from 'node:crypto';
import type { EventBus, OutgoingEvent } from '@trove/bus';
import {
  COLLECTION_DATA_MAX_FIELDS,
  fieldLimitProblem,
  type ClaimStatus,
  type CollectionStats,
  type CollectionSummary,
  type IndexingSummary,
  type Plan,
  type RecordDto,
  type VocabularyName,
} from '@trove/contracts';
import { ERRORS, validationError } from '@trove/platform';
import { contentHash } from './domain/content-hash';
import { describeRecord } from './domain/description';
import { recordChanged, type ChangeKind } from './domain/events';
import { recordsCreated } from './domain/usage';
import { allowance, growthRefusal, isLimited } from './domain/quota';
import { writtenGeneration } from './domain/replace';
import { planUpsert, type ItemResult, type UpsertItem } from './domain/upsert';
import { applyUpdate, type RecordUpdate } from './domain/update';
import { activeGenerations, ensureCollection, listCollections, setDefaultVisibility, type CollectionSettings } from './store/collections';
import { archiveGeneration, setCollectionVisibility } from './store/collection-records';
import { collectionStats } from './store/collection-stats';
import { countIndexingBacklog, countIndexingStatuses } from './store/indexing';
import { publicRecords, publicVisible } from './store/public';
import { lockTenantQuota, tenantHoldings } from './store/quota';
import {
  archiveRecords,
  findLiveByContentHashes,
  findLiveBySourceIds,
  findRecord,
  insertRecords,
  listRecords,
  lockCollectionWrites,
  lockRecords,
  replaceContents,
  requeueRecords,
  resetFailed,
  resetForReindex,
  saveEdits,
  setVisibility,
  toDto,
  transactionTime,
  type ListFilter,
  type ListRow,
  type NewRecord,
  type NewRecordsShared,
  type RecordRow,
} from './store/records';
import type { Db, Trx } from './store/schema';
import type { IndexingWaiter } from './indexing-waiter';

export type Visibility = 'private' | 'public';

export interface CreateRecordInput {
  name: string;
  collection: string;
  record_type: string;
  collection_data: Record<string, unknown>;
  visibility?: Visibility;
  description?: string;
  status: 'active' | 'draft';
  source_name?: string;
  source_id?: string;
  source_url?: string;
  /** The older vocabulary's field (POST /entities). */
  claim_status?: ClaimStatus;
}

/**
 * Which vocabulary a write comes through: the vocabulary a collection it creates names itself in, and whether its
 * records are indexed through the older pipeline's jobs (they then stay pending until a job takes them, and the
 * write answers without waiting for search).
 */
export interface WriteOrigin {
  vocabulary: VocabularyName;
  pipeline: boolean;
}

/** A write through the current vocabulary: answered once search has the change. */
export const CURRENT_WRITE: WriteOrigin = { vocabulary: 'current', pipeline: false };
/** A write through the older vocabulary that queues its records for the pipeline (spec, Indexing status, older rows). */
export const PIPELINE_WRITE: WriteOrigin = { vocabulary: 'older', pipeline: true };

/** A chunk of records from one source for one collection and record type (the bulk upsert contract, parsed). */
export interface BulkUpsertInput {
  collection: string;
  record_type: string;
  source_type: RecordRow['source_type'];
  source_name?: string | null;
  backlog_count_limit?: number;
  /** A replace's staging generation to write into; the active one when absent. */
  generation?: number;
  /** Absent: CURRENT_WRITE. */
  origin?: WriteOrigin;
  records: Array<{
    name: string;
    source_id?: string | null;
    collection_data: Record<string, unknown>;
    description?: string | null;
    source_url?: string | null;
  }>;
}

export interface BulkUpsertOutcome {
  /** One per input record, in input order. */
  results: ItemResult[];
  /** The tenant's records pending or being indexed after the write. */
  pending_indexing: number;
}

/**
 * Writes over a whole collection answer once search has acknowledged every record they changed, when they changed at
 * most this many; a larger one answers at commit and search catches up (each wait is one row of the waiter's poll).
 */
const SETTLE_LIMIT = 1000;

/** Attempts of a bulk upsert that lost a race with a concurrent write to the same records before it gives up. */
const UPSERT_ATTEMPTS = 3;

/** A listing as the caller asks for it; the service adds the tenant. */
export type ListQuery = Omit<ListFilter, 'tenantId'>;

/**
 * The records use cases. Every write is one transaction that also writes one records.changed event per record it
 * changed (the transactional outbox), so a change and its announcement commit together or not at all.
 */
export class RecordsService {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    /** Without it, writes answer as soon as they commit (indexing pending). */
    private readonly indexing?: { waiter: IndexingWaiter; timeoutMs: number },
  ) {}

  /**
   * The record as it stands once search has acknowledged this version, so that the next search sees the write; or
   * still pending when search did not answer in time (it is indexed when search recovers).
   */
  private async searchable(dto: RecordDto): Promise<RecordDto> {
    if (!this.indexing || dto.indexing_status === 'indexed') return dto;
    const status = await this.indexing.waiter.wait(dto.tenant_id, dto.id, dto.version, this.indexing.timeoutMs);
    return status === 'pending' ? dto : { ...dto, indexing_status: status };
  }

  /** searchable for every record of one write, waiting at most once the bounded time (they are waited on together). */
  private async settled(dtos: RecordDto[]): Promise<void> {
    if (dtos.length <= SETTLE_LIMIT) await Promise.all(dtos.map((dto) => this.searchable(dto)));
  }

  private async write<T>(
    work: (trx: Trx, announce: (kind: ChangeKind, rows: RecordRow[]) => RecordDto[]) => Promise<T>,
    origin: WriteOrigin = CURRENT_WRITE,
  ): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const changes: Array<{ kind: ChangeKind; dto: RecordDto }> = [];
      const announce = (kind: ChangeKind, rows: RecordRow[]) =>
        rows.map((row) => {
          const dto = toDto(row);
          changes.push({ kind, dto });
          return dto;
        });
      const result = await work(trx, announce);
      if (changes.length > 0) {
        // Every change of one write belongs to one tenant; read in the same transaction as the change.
        const tenantId = changes[0]!.dto.tenant_id;
        const collections = await activeGenerations(trx, tenantId, [...new Set(changes.map((c) => c.dto.collection))]);
        const events: OutgoingEvent[] = changes.map(({ kind, dto }) => {
          const collection = collections.get(dto.collection);
          const state = { activeGeneration: collection?.active_generation ?? dto.generation, vocabulary: collection?.vocabulary ?? 'current' };
          return recordChanged(kind, dto, state, origin.pipeline);
        });
        // A record's first version is its creation (insertRecords writes version 1, every later change raises it).
        const usage = recordsCreated(changes.filter((c) => c.kind === 'upserted' && c.dto.version === 1).map((c) => c.dto), new Date());
        if (usage) events.push(usage);
        await this.bus.publishInTransaction(trx, events);
      }
      return result;
    });
  }

  /**
   * Creates one record; a source_id may name only one live record of a collection (409 otherwise). An active record
   * beyond the plan's record or collection limit is refused with 402 and nothing is written. Answers once search has
   * it, or at once (pending) for a write queued for the pipeline.
   */
  async create(tenantId: string, plan: Plan, input: CreateRecordInput, origin: WriteOrigin = CURRENT_WRITE): Promise<RecordDto> {
    const dto = await this.createUnacknowledged(tenantId, plan, input, origin);
    return origin.pipeline ? dto : this.searchable(dto);
  }

  private async createUnacknowledged(tenantId: string, plan: Plan, input: CreateRecordInput, origin: WriteOrigin): Promise<RecordDto> {
    const taken = () => ERRORS.conflict(`A record with source_id ${input.source_id} already exists in collection ${input.collection}`);
    return this.write(async (trx, announce) => {
      if (input.source_id !== undefined) await lockCollectionWrites(trx, tenantId, input.collection);
      const settings = await ensureCollection(trx, tenantId, input.collection, origin.vocabulary);
      if (input.source_id !== undefined) {
        const matches = await findLiveBySourceIds(trx, tenantId, input.collection, settings.active_generation, [input.source_id]);
        if (matches.length > 0) throw taken();
      }
      if (input.status === 'active') {
        const limit = await createLimit(trx, tenantId, plan, input.collection, settings.active_generation);
        if (limit && limit.allowed < 1) throw ERRORS.paymentRequired(limit.reason);
      }
      const { shared, records } = newRecordRows({ ...input, tenant_id: tenantId, source_type: 'api' }, settings, [
        { ...input, id: randomUUID(), content_hash: contentHash(input) },
      ]);
      const rows = await insertRecords(trx, shared, records, await transactionTime(trx));
      return announce('upserted', rows)[0]!;
    }, origin).catch((err: unknown) => {
      // An upload writing by source id takes no lock, so it may have created the record since the look above.
      throw isSourceIdTaken(err) ? taken() : err;
    });
  }

  /**
   * Creates, updates or skips each record of a chunk (docs/behaviour/ingestion.md, Dedup; domain/upsert.ts has the rules) in one
   * transaction with one records.changed event per record written. A constant number of statements whatever the
   * chunk's size: one lookup by source_id, one by content hash, one insert, one update, the events, one count.
   * Records must already be valid (the route parses them with the contract). New records beyond the plan's record or
   * collection limit are not written and answer `refused` with the reason; updates of existing records still apply.
   */
  async bulkUpsert(tenantId: string, plan: Plan, input: BulkUpsertInput): Promise<BulkUpsertOutcome> {
    // Hashing is CPU work: done before the transaction, so the collection's lock is held only for the database work.
    const items = input.records.map((r) => ({ ...r, content_hash: contentHash(r) }));
    const sourceIds = [...new Set(items.flatMap((i) => (i.source_id != null ? [i.source_id] : [])))];
    const hashes = [...new Set(items.flatMap((i) => (i.source_id == null ? [i.content_hash] : [])))];
    // Counted after commit, so the collection's lock is not held while it runs: its cost grows with the backlog.
    const results = await this.upsertChunk(tenantId, plan, input, items, sourceIds, hashes);
    return { results, pending_indexing: await countIndexingBacklog(this.db, tenantId, input.backlog_count_limit) };
  }

  private async upsertChunk(
    tenantId: string,
    tenantPlan: Plan,
    input: BulkUpsertInput,
    items: UpsertItem[],
    sourceIds: string[],
    hashes: string[],
  ): Promise<ItemResult[]> {
    const origin = input.origin ?? CURRENT_WRITE;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(async (trx, announce) => {
          // Dedup by content must see every record a concurrent writer may be creating, so it waits for the others.
          // By source id alone it needs no lock: the unique index on live source ids makes the later of two writers
          // creating one fail, and its chunk starts over and finds the record. It starts over holding the lock, so a
          // stream of API creates (which take it) cannot make it lose again and again.
          if (hashes.length > 0 || attempt > 1) await lockCollectionWrites(trx, tenantId, input.collection);
          const settings = await ensureCollection(trx, tenantId, input.collection, origin.vocabulary);
          const generation = writtenGeneration(input.collection, settings, input.generation);
          const bySource = await findLiveBySourceIds(trx, tenantId, input.collection, generation, sourceIds);
          const byHash = await findLiveByContentHashes(trx, tenantId, input.collection, generation, input.record_type, hashes, items.length + 1);
          const planned = { recordType: input.record_type, items, bySource, byHash, newId: randomUUID };
          let plan = planUpsert(planned);
          const updated = await replaceContents(
            trx,
            tenantId,
            plan.updates.map((w) => ({ ...w, description_llm: describeRecord({ ...w, collection: input.collection }) })),
          );
          // A record archived between the lookup and the update: the plan no longer holds, so the chunk starts over.
          if (updated.length !== plan.updates.length) throw new LostRace();
          // The plan's limits only cut new records (the stored records' updates stay as planned). Checked after the
          // updates, so the tenant's quota lock is taken once every row lock of this write is held.
          if (plan.creates.length > 0) {
            const limit = await createLimit(trx, tenantId, tenantPlan, input.collection, generation);
            if (limit && limit.allowed < plan.creates.length) plan = planUpsert({ ...planned, createLimit: limit });
          }
          const { shared, records } = newRecordRows({ ...input, tenant_id: tenantId, status: 'active', generation }, settings, plan.creates);
          const created = await insertRecords(trx, shared, records, await transactionTime(trx));
          announce('upserted', created);
          announce('upserted', updated);
          return plan.results;
        }, origin);
      } catch (err) {
        if (attempt >= UPSERT_ATTEMPTS || !(err instanceof LostRace || isDeadlock(err) || isSourceIdTaken(err))) throw err;
      }
    }
  }

  async get(tenantId: string, id: string): Promise<RecordDto> {
    const row = await findRecord(this.db, tenantId, id);
    if (!row) throw notFound(id);
    return toDto(row);
  }

  /** One page plus whether more follow: one row beyond the page is fetched to know. */
  async list(tenantId: string, query: ListQuery): Promise<{ items: ListRow[]; hasMore: boolean }> {
    const rows = await listRecords(this.db, { tenantId, ...query, limit: query.limit + 1 });
    return { items: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }

  /** The records among `ids` that anyone may see (public, active, of the active generation), of any tenant. */
  publicRecords(ids: string[]) {
    return publicRecords(this.db, ids);
  }

  /** Which of `ids` anyone may see, each with its tenant, the records themselves not read. */
  publicVisible(ids: string[]) {
    return publicVisible(this.db, ids);
  }

  /**
   * Updates one record; an archived record cannot change. An update that changes nothing writes nothing. Making a
   * draft active adds an active record, so the plan's limits apply to it as to a creation (402).
   */
  async update(tenantId: string, plan: Plan, id: string, update: RecordUpdate): Promise<RecordDto> {
    const dto = await this.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      const next = applyUpdate(row, update);
      if (!next) return toDto(row);
      refuseTooManyFields(next, ['body', 'collection_data']);
      if (row.status === 'draft' && next.status === 'active') {
        const limit = await createLimit(trx, tenantId, plan, row.collection, row.generation);
        if (limit && limit.allowed < 1) throw ERRORS.paymentRequired(limit.reason);
      }
      return announce('upserted', await saveEdits(trx, tenantId, [next]))[0]!;
    });
    return this.searchable(dto);
  }

  /**
   * Applies one update to many records; counts the tenant's records that exist and are not archived. Drafts made
   * active may span collections, so the plan's limits are checked on what the write leaves: 402 and nothing written
   * when it took the tenant past them.
   */
  async bulkUpdate(tenantId: string, plan: Plan, ids: string[], update: RecordUpdate): Promise<number> {
    return this.write(async (trx, announce) => {
      const live = (await lockRecords(trx, tenantId, unique(ids))).filter((r) => r.status !== 'archived');
      const changed = live.map((r) => applyUpdate(r, update)).filter((r): r is RecordRow => r !== undefined);
      for (const record of changed) refuseTooManyFields(record, ['body', 'update', 'collection_data']);
      const activates = update.status === 'active' && live.some((r) => r.status === 'draft') && isLimited(plan);
      if (activates) await lockTenantQuota(trx, tenantId);
      const before = activates ? await tenantHoldings(trx, tenantId) : undefined;
      announce('upserted', await saveEdits(trx, tenantId, changed));
      const refusal = before && growthRefusal(plan, before, await tenantHoldings(trx, tenantId));
      if (refusal) throw ERRORS.paymentRequired(refusal);
      return live.length;
    });
  }

  /** Archives (soft-deletes) one record; archiving an archived record again is a no-op. */
  async archive(tenantId: string, id: string): Promise<void> {
    const dto = await this.write(async (trx, announce) => {
      const archivedNow = await archiveRecords(trx, tenantId, [id]);
      if (archivedNow.length > 0) return announce('archived', archivedNow)[0];
      if (!(await findRecord(trx, tenantId, id))) throw notFound(id);
      return undefined;
    });
    if (dto) await this.searchable(dto);
  }

  /** Archives many records; counts those that were not archived before. */
  async bulkArchive(tenantId: string, ids: string[]): Promise<number> {
    return this.write(async (trx, announce) => {
      // Locking in id order first keeps concurrent bulk calls over overlapping ids from deadlocking.
      const locked = await lockRecords(trx, tenantId, unique(ids));
      const archivedNow = await archiveRecords(
        trx,
        tenantId,
        locked.map((r) => r.id),
      );
      return announce('archived', archivedNow).length;
    });
  }

  /** Sets one record's visibility; answers once the public index reflects it (or after the bounded wait). */
  async setVisibility(tenantId: string, id: string, visibility: Visibility): Promise<void> {
    const [dto] = await this.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      return announce('visibility', await setVisibility(trx, tenantId, [id], visibility));
    });
    if (dto) await this.searchable(dto);
  }

  /** Sets the visibility of many records; counts the tenant's records that exist and are not archived. */
  async bulkSetVisibility(tenantId: string, ids: string[], visibility: Visibility): Promise<number> {
    return this.write(async (trx, announce) => {
      const live = (await lockRecords(trx, tenantId, unique(ids))).filter((r) => r.status !== 'archived');
      announce(
        'visibility',
        await setVisibility(
          trx,
          tenantId,
          live.map((r) => r.id),
          visibility,
        ),
      );
      return live.length;
    });
  }

  async setDefaultVisibility(tenantId: string, collection: string, visibility: Visibility): Promise<void> {
    await setDefaultVisibility(this.db, tenantId, collection, visibility);
  }

  /**
   * Sets the collection's default visibility and gives every active record of it that visibility, in one write
   * (creating the collection when it is new); counts the records it changed.
   */
  async applyDefaultVisibility(tenantId: string, collection: string, visibility: Visibility): Promise<number> {
    const changed = await this.write(async (trx, announce) => {
      await setDefaultVisibility(trx, tenantId, collection, visibility);
      return announce('visibility', await setCollectionVisibility(trx, tenantId, collection, visibility));
    });
    await this.settled(changed);
    return changed.length;
  }

  /**
   * Archives every record of the collection's active generation (a staged replace is left to its own routes); counts
   * them. 404 when the tenant has no such collection.
   */
  async archiveCollection(tenantId: string, collection: string): Promise<number> {
    const archivedNow = await this.write(async (trx, announce) => {
      const generation = (await activeGenerations(trx, tenantId, [collection])).get(collection)?.active_generation;
      if (generation === undefined) throw ERRORS.notFound(`Collection ${collection} not found`);
      return announce('archived', await archiveGeneration(trx, tenantId, collection, generation));
    });
    await this.settled(archivedNow);
    return archivedNow.length;
  }

  /** The tenant's collections with their record types and counts, by name. */
  async collections(tenantId: string): Promise<CollectionSummary[]> {
    return listCollections(this.db, tenantId);
  }

  /** The tenant's collections with their active and public record counts and last change, by name. */
  async collectionStats(tenantId: string): Promise<CollectionStats[]> {
    return collectionStats(this.db, tenantId);
  }

  /** How the tenant's records among `ids` stand in indexing (the older pipeline status of an upload). */
  async indexingSummary(tenantId: string, ids: string[]): Promise<IndexingSummary> {
    const counts = await countIndexingStatuses(this.db, tenantId, ids);
    return { total: counts.pending + counts.processing + counts.indexed + counts.failed, ...counts };
  }

  /**
   * Queues the tenant's live pending or failed records among `ids` for the older pipeline (POST /pipeline/trigger);
   * returns how many.
   */
  async requeue(tenantId: string, ids: string[]): Promise<number> {
    return this.write(async (trx, announce) => announce('upserted', await requeueRecords(trx, tenantId, ids)).length, PIPELINE_WRITE);
  }

  /** Queues every live record of a collection for indexing again; 404 when the tenant has no such collection. */
  async reindexCollection(tenantId: string, collection: string, origin: WriteOrigin = CURRENT_WRITE): Promise<number> {
    return this.write(async (trx, announce) => {
      const reset = announce('upserted', await resetForReindex(trx, tenantId, { collection }));
      if (reset.length === 0 && (await activeGenerations(trx, tenantId, [collection])).size === 0) {
        throw ERRORS.notFound(`Collection ${collection} not found`);
      }
      return reset.length;
    }, origin);
  }

  /** Queues one record for indexing again; 404 when it does not exist, 409 when it is archived. */
  async reindexRecord(tenantId: string, id: string): Promise<void> {
    await this.write(async (trx, announce) => {
      if (announce('upserted', await resetForReindex(trx, tenantId, { id })).length > 0) return;
      const row = await findRecord(trx, tenantId, id);
      if (!row) throw notFound(id);
      throw archived(id);
    });
  }

  /** Sends records whose indexing failed back to pending, each with a new version, so the pipeline retries them. */
  async retryFailed(tenantId: string, origin: WriteOrigin = CURRENT_WRITE): Promise<number> {
    return this.write(async (trx, announce) => announce('upserted', await resetFailed(trx, tenantId)).length, origin);
  }
}

/** Where the records of one write go and where they came from, as the write states it. */
interface NewRecordsTarget {
  tenant_id: string;
  collection: string;
  record_type: string;
  status: 'active' | 'draft';
  /** The collection's default when absent. */
  visibility?: Visibility;
  /** The collection's active generation when absent. */
  generation?: number;
  source_name?: string | null;
  source_type: RecordRow['source_type'];
  claim_status?: ClaimStatus;
}

/** What a new record has of its own; optional fields absent are stored as null. */
interface NewRecordContent {
  id: string;
  name: string;
  collection_data: Record<string, unknown>;
  content_hash: string;
  description?: string | null;
  source_id?: string | null;
  source_url?: string | null;
}

/**
 * The rows insertRecords writes for new records, whichever route creates them: the collection's settings complete
 * the target (its default visibility, its active generation) and each record is described.
 */
function newRecordRows(
  target: NewRecordsTarget,
  settings: CollectionSettings,
  contents: NewRecordContent[],
): { shared: NewRecordsShared; records: NewRecord[] } {
  const shared: NewRecordsShared = {
    tenant_id: target.tenant_id,
    collection: target.collection,
    record_type: target.record_type,
    status: target.status,
    visibility: target.visibility ?? settings.default_visibility,
    generation: target.generation ?? settings.active_generation,
    source_name: target.source_name ?? null,
    source_type: target.source_type,
    claim_status: target.claim_status ?? null,
  };
  const described = (c: NewRecordContent) =>
    describeRecord({ name: c.name, record_type: target.record_type, collection: target.collection, collection_data: c.collection_data });
  const records = contents.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description ?? null,
    description_llm: described(c),
    collection_data: c.collection_data,
    content_hash: c.content_hash,
    source_id: c.source_id ?? null,
    source_url: c.source_url ?? null,
  }));
  return { shared, records };
}

/**
 * For a plan that limits records or collections: takes the tenant's quota lock (held until commit) and says how many
 * active records a write may add to the collection's generation. Undefined when the plan limits neither, at no cost.
 */
async function createLimit(trx: Trx, tenantId: string, plan: Plan, collection: string, generation: number): Promise<{ allowed: number; reason: string } | undefined> {
  if (!isLimited(plan)) return undefined;
  await lockTenantQuota(trx, tenantId);
  const { allowed, reason } = allowance(plan, await tenantHoldings(trx, tenantId, { collection, generation }));
  return allowed === null ? undefined : { allowed, reason };
}

class LostRace extends Error {}

/** Another writer created a live record with one of the source ids since this one looked. */
function isSourceIdTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown };
  return e?.code === '23505' && e.constraint === 'records_source_live';
}

/** PostgreSQL aborted the transaction to break a deadlock with another writer; running it again succeeds. */
function isDeadlock(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '40P01';
}

function unique(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

function notFound(id: string) {
  return ERRORS.notFound(`Record ${id} not found`);
}

function archived(id: string) {
  return ERRORS.conflict(`Record ${id} is archived and cannot be changed`);
}

/**
 * PATCH merges collection_data into the stored object, so two updates each within the field limit could together
 * exceed it: the merged object is held to the limit too (422, and nothing is written).
 */
function refuseTooManyFields(record: { collection_data: Record<string, unknown> }, loc: string[]): void {
  if (fieldLimitProblem(record.collection_data)?.reason !== 'too_many_fields') return;
  throw validationError(
    loc,
    `Value should have at most ${COLLECTION_DATA_MAX_FIELDS} fields, counted over every nested level, once merged with the stored collection_data`,
    'value_error',
    null,
  );
}
