import { randomUUID } from 'node:crypto';
import type { EventBus, OutgoingEvent } from '@trove/bus';
import type { RecordDto } from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import { describeRecord } from './domain/description';
import { recordChanged, type ChangeKind } from './domain/events';
import { applyUpdate, type RecordUpdate } from './domain/update';
import type { ListPosition } from './domain/cursor';
import { ensureCollection, setDefaultVisibility } from './store/collections';
import {
  archiveRecords,
  findRecord,
  insertRecord,
  listRecords,
  lockRecords,
  resetFailed,
  saveEdits,
  setVisibility,
  toDto,
  type ListRow,
  type RecordRow,
} from './store/records';
import type { Db, Trx } from './store/schema';

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
}

export interface ListQuery {
  status: RecordRow['status'];
  collection?: string;
  recordType?: string;
  nameQuery?: string;
  after?: ListPosition;
  limit: number;
}

/**
 * The records use cases. Every write is one transaction that also writes one records.changed event per record it
 * changed (the transactional outbox), so a change and its announcement commit together or not at all.
 */
export class RecordsService {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
  ) {}

  private async write<T>(work: (trx: Trx, announce: (kind: ChangeKind, rows: RecordRow[]) => RecordDto[]) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const events: OutgoingEvent[] = [];
      const announce = (kind: ChangeKind, rows: RecordRow[]) =>
        rows.map((row) => {
          const dto = toDto(row);
          events.push(recordChanged(kind, dto));
          return dto;
        });
      const result = await work(trx, announce);
      await this.bus.publishInTransaction(trx, events);
      return result;
    });
  }

  async create(tenantId: string, input: CreateRecordInput): Promise<RecordDto> {
    return this.write(async (trx, announce) => {
      const collection = await ensureCollection(trx, tenantId, input.collection);
      const row = await insertRecord(trx, {
        id: randomUUID(),
        tenant_id: tenantId,
        name: input.name,
        description: input.description ?? null,
        description_llm: describeRecord(input),
        collection: input.collection,
        record_type: input.record_type,
        collection_data: input.collection_data,
        status: input.status,
        visibility: input.visibility ?? collection.default_visibility,
        generation: collection.active_generation,
        source_name: input.source_name ?? null,
        source_id: input.source_id ?? null,
        source_url: input.source_url ?? null,
        source_type: 'api',
      });
      return announce('upserted', [row])[0]!;
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

  /** Updates one record; an archived record cannot change. An update that changes nothing writes nothing. */
  async update(tenantId: string, id: string, update: RecordUpdate): Promise<RecordDto> {
    return this.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      const next = applyUpdate(row, update);
      if (!next) return toDto(row);
      return announce('upserted', await saveEdits(trx, tenantId, [next]))[0]!;
    });
  }

  /** Applies one update to many records; counts the tenant's records that exist and are not archived. */
  async bulkUpdate(tenantId: string, ids: string[], update: RecordUpdate): Promise<number> {
    return this.write(async (trx, announce) => {
      const live = (await lockRecords(trx, tenantId, unique(ids))).filter((r) => r.status !== 'archived');
      const changed = live.map((r) => applyUpdate(r, update)).filter((r): r is RecordRow => r !== undefined);
      announce('upserted', await saveEdits(trx, tenantId, changed));
      return live.length;
    });
  }

  /** Archives (soft-deletes) one record; archiving an archived record again is a no-op. */
  async archive(tenantId: string, id: string): Promise<void> {
    await this.write(async (trx, announce) => {
      const archivedNow = await archiveRecords(trx, tenantId, [id]);
      if (archivedNow.length > 0) {
        announce('archived', archivedNow);
        return;
      }
      if (!(await findRecord(trx, tenantId, id))) throw notFound(id);
    });
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

  async setVisibility(tenantId: string, id: string, visibility: Visibility): Promise<void> {
    await this.write(async (trx, announce) => {
      const [row] = await lockRecords(trx, tenantId, [id]);
      if (!row) throw notFound(id);
      if (row.status === 'archived') throw archived(id);
      announce('visibility', await setVisibility(trx, tenantId, [id], visibility));
    });
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

  /** Sends records whose indexing failed back to pending, each with a new version, so the pipeline retries them. */
  async retryFailed(tenantId: string): Promise<number> {
    return this.write(async (trx, announce) => announce('upserted', await resetFailed(trx, tenantId)).length);
  }
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
