import type { EventBus, OutgoingEvent } from '@trove/bus';
import type { RecordDto, VocabularyName } from '@trove/contracts';
import { activeGenerations } from '../collections/store';
import type { IndexingWaiter } from '../indexing/waiter';
import type { Db, Trx } from '../shared/schema';
import { recordChanged, type ChangeKind } from './events';
import { toDto, type RecordRow } from './store';
import { recordsCreated } from './usage';

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
/** A write through the older vocabulary, its records queued for the pipeline (docs/behaviour/older-vocabulary.md). */
export const PIPELINE_WRITE: WriteOrigin = { vocabulary: 'older', pipeline: true };

/** Announces the records a write changed, in its transaction; answers them as the API shows them. */
export type Announce = (kind: ChangeKind, rows: RecordRow[]) => RecordDto[];

/** How long a write may wait for search to acknowledge it (INDEXING_WAIT_MS), and what it waits with. */
export interface IndexingWait {
  waiter: IndexingWaiter;
  timeoutMs: number;
}

/**
 * Writes over a whole collection answer once search has acknowledged every record they changed, when they changed at
 * most this many; a larger one answers at commit and search catches up (each wait is one row of the waiter's poll).
 */
const SETTLE_LIMIT = 1000;

/**
 * How every service that changes records writes. Every write is one transaction that also writes one records.changed
 * event per record it changed (the transactional outbox), so a change and its announcement commit together or not
 * at all; the services then wait, within a bound, until search has the change.
 */
export class RecordWrites {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    /** Without it, writes answer as soon as they commit (indexing pending). */
    private readonly indexing?: IndexingWait,
  ) {}

  /**
   * The record as it stands once search has acknowledged this version, so that the next search sees the write; or
   * still pending when search did not answer in time (it is indexed when search recovers).
   */
  async searchable(dto: RecordDto): Promise<RecordDto> {
    if (!this.indexing || dto.indexing_status === 'indexed') return dto;
    const status = await this.indexing.waiter.wait(dto.tenant_id, dto.id, dto.version, this.indexing.timeoutMs);
    return status === 'pending' ? dto : { ...dto, indexing_status: status };
  }

  /** searchable for every record of one write, waiting at most once the bounded time (they are waited on together). */
  async settled(dtos: RecordDto[]): Promise<void> {
    if (dtos.length <= SETTLE_LIMIT) await Promise.all(dtos.map((dto) => this.searchable(dto)));
  }

  async write<T>(work: (trx: Trx, announce: Announce) => Promise<T>, origin: WriteOrigin = CURRENT_WRITE): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const changes: Array<{ kind: ChangeKind; dto: RecordDto }> = [];
      const announce: Announce = (kind, rows) =>
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
}
