import { randomUUID } from 'node:crypto';
import { COLLECTION_DATA_MAX_FIELDS, fieldLimitProblem, type ClaimStatus, type Plan, type RecordDto } from '@trove/contracts';
import { ERRORS, validationError } from '@trove/platform';
import { ensureCollection } from '../collections/store';
import { growthRefusal, isLimited } from '../quota/quota';
import { createLimit, lockTenantQuota, tenantHoldings } from '../quota/store';
import type { Db } from '../shared/schema';
import type { Visibility } from '../visibility/service';
import { archived, notFound, unique } from './by-id';
import { contentHash } from './content-hash';
import { isSourceIdTaken, newRecordRows } from './new-records';
import {
  archiveRecords,
  findLiveBySourceIds,
  findRecord,
  insertRecords,
  listRecords,
  lockCollectionWrites,
  lockRecords,
  saveEdits,
  toDto,
  transactionTime,
  type ListFilter,
  type ListRow,
  type RecordRow,
} from './store';
import { applyUpdate, type RecordUpdate } from './update';
import { CURRENT_WRITE, type RecordWrites, type WriteOrigin } from './writes';

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

/** A listing as the caller asks for it; the service adds the tenant. */
export type ListQuery = Omit<ListFilter, 'tenantId'>;

/**
 * One record's use cases, in either vocabulary: create, read, list, update, archive, and the bulk updates and
 * archives. Each write goes through RecordWrites (one transaction with its records.changed events).
 */
export class RecordsService {
  constructor(
    private readonly db: Db,
    private readonly writes: RecordWrites,
  ) {}

  /**
   * Creates one record; a source_id may name only one live record of a collection (409 otherwise). An active record
   * beyond the plan's record or collection limit is refused with 402 and nothing is written. Answers once search has
   * it, or at once (pending) for a write queued for the pipeline.
   */
  async create(tenantId: string, plan: Plan, input: CreateRecordInput, origin: WriteOrigin = CURRENT_WRITE): Promise<RecordDto> {
    const dto = await this.createUnacknowledged(tenantId, plan, input, origin);
    return origin.pipeline ? dto : this.writes.searchable(dto);
  }

  private async createUnacknowledged(tenantId: string, plan: Plan, input: CreateRecordInput, origin: WriteOrigin): Promise<RecordDto> {
    const taken = () => ERRORS.conflict(`A record with source_id ${input.source_id} already exists in collection ${input.collection}`);
    return this.writes.write(async (trx, announce) => {
      if (input.source_id !== undefined) await lockCollectionWrites(trx, tenantId, input.collection);
      const settings = await ensureCollection(trx, tenantId, input.collection, origin.vocabulary);
      if (input.source_id !== undefined) {
        const matches = await findLiveBySourceIds(trx, tenantId, input.collection, settings.active_generation, [input.source_id]);
        if (matches.length > 0) throw taken();
      }
      if (input.status === 'active') {
        const limit = await createLimit(trx, tenantId, plan, input.collection, settings.active_generation);
        if (limit && limit.allowed < 1) throw ERRORS.paymentRequired(limit.reason, 'plan_records');
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

  /**
   * Updates one record; an archived record cannot change. An update that changes nothing writes nothing. Making a
   * draft active adds an active record, so the plan's limits apply to it as to a creation (402).
   */
  async update(tenantId: string, plan: Plan, id: string, update: RecordUpdate): Promise<RecordDto> {
    const dto = await this.writes.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      const next = applyUpdate(row, update);
      if (!next) return toDto(row);
      refuseTooManyFields(next, ['body', 'collection_data']);
      if (row.status === 'draft' && next.status === 'active') {
        const limit = await createLimit(trx, tenantId, plan, row.collection, row.generation);
        if (limit && limit.allowed < 1) throw ERRORS.paymentRequired(limit.reason, 'plan_records');
      }
      return announce('upserted', await saveEdits(trx, tenantId, [next]))[0]!;
    });
    return this.writes.searchable(dto);
  }

  /**
   * Applies one update to many records; counts the tenant's records that exist and are not archived. Drafts made
   * active may span collections, so the plan's limits are checked on what the write leaves: 402 and nothing written
   * when it took the tenant past them.
   */
  async bulkUpdate(tenantId: string, plan: Plan, ids: string[], update: RecordUpdate): Promise<number> {
    return this.writes.write(async (trx, announce) => {
      const live = (await lockRecords(trx, tenantId, unique(ids))).filter((r) => r.status !== 'archived');
      const changed = live.map((r) => applyUpdate(r, update)).filter((r): r is RecordRow => r !== undefined);
      for (const record of changed) refuseTooManyFields(record, ['body', 'update', 'collection_data']);
      const activates = update.status === 'active' && live.some((r) => r.status === 'draft') && isLimited(plan);
      if (activates) await lockTenantQuota(trx, tenantId);
      const before = activates ? await tenantHoldings(trx, tenantId) : undefined;
      announce('upserted', await saveEdits(trx, tenantId, changed));
      const refusal = before && growthRefusal(plan, before, await tenantHoldings(trx, tenantId));
      if (refusal) throw ERRORS.paymentRequired(refusal, 'plan_records');
      return live.length;
    });
  }

  /** Archives (soft-deletes) one record; archiving an archived record again is a no-op. */
  async archive(tenantId: string, id: string): Promise<void> {
    const dto = await this.writes.write(async (trx, announce) => {
      const archivedNow = await archiveRecords(trx, tenantId, [id]);
      if (archivedNow.length > 0) return announce('archived', archivedNow)[0];
      if (!(await findRecord(trx, tenantId, id))) throw notFound(id);
      return undefined;
    });
    if (dto) await this.writes.searchable(dto);
  }

  /** Archives many records; counts those that were not archived before. */
  async bulkArchive(tenantId: string, ids: string[]): Promise<number> {
    return this.writes.write(async (trx, announce) => {
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
