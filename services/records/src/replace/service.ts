import type { EventBus } from '@trove/bus';
import {
  PLAN_LIMITS,
  TOPICS,
  planOf,
  type CancelReplaceResult,
  type RecordChangedEvent,
  type ReplaceBeginResponse,
  type ReplaceStatus,
  type SwapResult,
} from '@trove/contracts';
import { ERRORS } from '@trove/platform';
import { archiveGeneration } from '../collections/records-store';
import { tenantHoldings } from '../quota/store';
import { recordChanged } from '../records/events';
import { toDto } from '../records/store';
import type { Db, Trx } from '../shared/schema';
import { NO_REPLACE, replaceStatus } from './replace';
import {
  closeStaging,
  countGeneration,
  deleteOtherGenerations,
  finishStaging,
  generationState,
  generationStateUnlessBusy,
  lockGenerations,
  openStaging,
  searchedGeneration,
  type GenerationState,
} from './store';

/** How often a swap looks whether search serves the new generation yet. */
const SWAP_POLL_MS = 50;

/**
 * Blue-green replace of a collection (docs/behaviour/blue-green-replace.md). A staging generation lives beside the
 * active one under the same collection name; search indexes it but serves only the active generation. Every step is
 * one records transaction, so a crash leaves either no staging or a staging generation that can still be swapped
 * (once its upload finished and it is indexed) or cancelled; the swap itself changes the active generation, deletes
 * the old one and writes the event search applies, together.
 */
export class ReplaceService {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    /** How long a swap waits for search to serve the new generation (INDEXING_WAIT_MS); 0 answers at commit. */
    private readonly searchWaitMs = 0,
  ) {}

  /**
   * Opens staging generation active + 1 for a file of `newRecords` records. 404 for a collection the tenant never
   * used; 402 when the tenant's other active records plus these exceed the plan; 409 when a replace is in progress.
   */
  async begin(tenantId: string, plan: string | undefined, collection: string, newRecords: number): Promise<ReplaceBeginResponse> {
    return this.db.transaction().execute(async (trx) => {
      const state = await generationState(trx, tenantId, collection);
      if (!state) throw notFound(collection);
      if (state.staging_generation !== null) throw inProgress(collection);
      const tenantPlan = planOf(plan);
      const limit = PLAN_LIMITS[tenantPlan].records;
      if (limit !== null) {
        // What the tenant keeps: every other collection's active records (this one's are the ones replaced).
        const others = (await tenantHoldings(trx, tenantId, { collection, generation: null })).records;
        if (others + newRecords > limit) {
          throw ERRORS.paymentRequired(
            `Replacing ${collection} with ${newRecords} records would exceed the ${tenantPlan} plan's limit of ${limit} active records (${others} records in other collections)`,
            'plan_records',
          );
        }
      }
      // The check above only answers early: this conditional update is what lets one replace in at a time.
      const generation = await openStaging(trx, tenantId, collection);
      if (generation === undefined) throw inProgress(collection);
      return { collection, generation, active_generation: state.active_generation };
    });
  }

  /** Marks the staging upload finished (ingestion wrote every chunk); 409 unless that upload is in progress. */
  async finish(tenantId: string, collection: string, generation: number, summary: unknown): Promise<void> {
    if (!(await finishStaging(this.db, tenantId, collection, generation, summary))) {
      throw ERRORS.conflict(`Generation ${generation} of collection ${collection} is not a replace upload in progress`);
    }
  }

  async status(tenantId: string, collection: string): Promise<ReplaceStatus> {
    return this.db.transaction().execute(async (trx) => {
      const found = await generationStateUnlessBusy(trx, tenantId, collection);
      if (!found) throw notFound(collection);
      const { state, busy } = found;
      if (state.staging_generation === null) return NO_REPLACE;
      const counts = await countGeneration(trx, tenantId, collection, state.staging_generation);
      return replaceStatus({ generation: state.staging_generation, uploaded: state.staging_status === 'uploaded', busy }, counts);
    });
  }

  /**
   * Makes the staging generation active, hard-deletes every other generation of the collection and announces the swap,
   * in one transaction holding the collection's row, which every writer of its records shares: none writes meanwhile.
   * 409 without staging or before it is ready to swap. Answers once search serves the new generation (its
   * acknowledgement of the swap), so the next search finds it in every shape; or after the bounded wait, when search
   * is slow or down (it serves it when it recovers).
   */
  async swap(tenantId: string, collection: string): Promise<SwapResult> {
    const result = await this.swapNow(tenantId, collection);
    const deadline = Date.now() + this.searchWaitMs;
    while (Date.now() < deadline && (await searchedGeneration(this.db, tenantId, collection)) < result.new_generation) {
      await new Promise((r) => setTimeout(r, SWAP_POLL_MS));
    }
    return result;
  }

  private async swapNow(tenantId: string, collection: string): Promise<SwapResult> {
    return this.db.transaction().execute(async (trx) => {
      const { state, staging } = await lockStaging(trx, tenantId, collection);
      const counts = await countGeneration(trx, tenantId, collection, staging);
      const status = replaceStatus({ generation: staging, uploaded: state.staging_status === 'uploaded', busy: false }, counts);
      if (!status.ready_to_swap) {
        throw ERRORS.conflict(`The replace of collection ${collection} is not ready to swap (phase ${status.phase}): wait until every staging record is indexed`);
      }
      const old = await countGeneration(trx, tenantId, collection, state.active_generation);
      await closeStaging(trx, tenantId, collection, staging);
      const deleted = await deleteOtherGenerations(trx, tenantId, collection, staging);
      const key = `${tenantId}/${collection}`;
      const payload: RecordChangedEvent = {
        kind: 'generation_swapped',
        tenant_id: tenantId,
        record_id: key,
        version: staging,
        collection,
        old_generation: state.active_generation,
        new_generation: staging,
      };
      await this.bus.publishInTransaction(trx, [{ topic: TOPICS.recordsChanged, key, payload }]);
      return {
        collection,
        old_generation: state.active_generation,
        new_generation: staging,
        old_record_count: old.total,
        new_record_count: counts.total,
        deleted,
      };
    });
  }

  /**
   * Archives the staging generation and drops the replace; production is not touched. 409 without staging, or when
   * `generation` is given (an upload giving up its own staging) and another generation is staged.
   */
  async cancel(tenantId: string, collection: string, generation?: number): Promise<CancelReplaceResult> {
    return this.db.transaction().execute(async (trx) => {
      const { state, staging } = await lockStaging(trx, tenantId, collection);
      if (generation !== undefined && generation !== staging) throw ERRORS.conflict(`Generation ${generation} of collection ${collection} is not staged`);
      const archived = await archiveGeneration(trx, tenantId, collection, staging);
      await closeStaging(trx, tenantId, collection, state.active_generation);
      await this.bus.publishInTransaction(
        trx,
        archived.map((row) => recordChanged('archived', toDto(row), { activeGeneration: state.active_generation, vocabulary: state.vocabulary })),
      );
      return { collection, cancelled_generation: staging, records_archived: archived.length };
    });
  }
}

/** The collection's generations locked for a swap or cancel, which both need a staging generation: 404, 409 otherwise. */
async function lockStaging(trx: Trx, tenantId: string, collection: string): Promise<{ state: GenerationState; staging: number }> {
  const state = await lockGenerations(trx, tenantId, collection);
  if (!state) throw notFound(collection);
  if (state.staging_generation === null) throw ERRORS.conflict(`No replace of collection ${collection} is in progress`);
  return { state, staging: state.staging_generation };
}

function notFound(collection: string) {
  return ERRORS.notFound(`Collection ${collection} not found`);
}

function inProgress(collection: string) {
  return ERRORS.conflict(`A replace of collection ${collection} is already in progress`);
}
