import { randomUUID } from 'node:crypto';
import type { Plan } from '@trove/contracts';
import { ensureCollection } from '../collections/store';
import { countIndexingBacklog } from '../indexing/store';
import { createLimit } from '../quota/store';
import { contentHash } from '../records/content-hash';
import { describeRecord } from '../records/description';
import { isSourceIdTaken, newRecordRows } from '../records/new-records';
import { findLiveBySourceIds, insertRecords, lockCollectionWrites, transactionTime, type RecordRow } from '../records/store';
import { CURRENT_WRITE, type RecordWrites, type WriteOrigin } from '../records/writes';
import { writtenGeneration } from '../replace/replace';
import type { Db } from '../shared/schema';
import { findLiveByContentHashes, replaceContents } from './store';
import { planUpsert, type ItemResult, type UpsertItem } from './upsert';

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

/** Attempts of a bulk upsert that lost a race with a concurrent write to the same records before it gives up. */
const UPSERT_ATTEMPTS = 3;

/** The bulk upsert: how ingestion writes an upload's records, a chunk at a time. */
export class UpsertService {
  constructor(
    private readonly db: Db,
    private readonly writes: RecordWrites,
  ) {}

  /**
   * Creates, updates or skips each record of a chunk (docs/behaviour/ingestion.md, Dedup; upsert.ts has the rules) in one
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
        return await this.writes.write(async (trx, announce) => {
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
}

class LostRace extends Error {}

/** PostgreSQL aborted the transaction to break a deadlock with another writer; running it again succeeds. */
function isDeadlock(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '40P01';
}
