import {
  RECORDS_BULK_UPSERT,
  RECORDS_INDEXING_SUMMARY,
  RECORDS_REPLACE_ABORT,
  RECORDS_REPLACE_BEGIN,
  RECORDS_REPLACE_FINISH,
  RECORDS_REQUEUE,
  type BulkUpsertRequest,
  type BulkUpsertResponse,
  type IndexingSummary,
  type ReplaceBeginResponse,
} from '@trove/contracts';
import { HttpError, type Identity, type ServiceClient } from '@trove/platform';

/**
 * What became of one chunk sent to records. Records writes a chunk in one transaction, so `failed` means none of it
 * was applied. Records validates a chunk by the contract ingestion's record mapping has already checked every record
 * against (bulkUpsertItem), so a refusal (422) is no answer about one record to take out and resend: it is a chunk
 * that was not written, like any other failure.
 */
export type ChunkOutcome = { kind: 'written'; response: BulkUpsertResponse } | { kind: 'failed'; reason: string };

/** The port to records' bulk upsert: one call and one transaction per chunk (what the ingestor writes through). */
export interface RecordsWriter {
  upsert(identity: Identity, request: BulkUpsertRequest, requestId?: string): Promise<ChunkOutcome>;
}

/** Why a chunk was not written, in words for its dead letters: a refusal's detail (a 422's messages), or why records could not answer. */
function reasonOf(err: unknown): string {
  if (!(err instanceof HttpError)) return 'The records service is unavailable';
  if (typeof err.detail === 'string') return err.status === 503 ? err.detail : `records answered ${err.status}: ${err.detail}`;
  return `records answered ${err.status}: ${err.detail.map((d) => d.msg).join('; ') || 'invalid request'}`;
}

/**
 * Ingestion's port to the records service: every call ingestion makes to records, over HTTP through one ServiceClient,
 * so the calls share one circuit breaker. Ingestion sends what records' contracts ask for, so an answer records does
 * not declare is records failing (503); each call says what it makes of the declared refusals.
 */
export class RecordsPort implements RecordsWriter {
  constructor(private readonly client: ServiceClient) {}

  /** Writes one chunk (bulk upsert); never throws: a chunk records did not write is `failed`, with the reason. */
  async upsert(identity: Identity, request: BulkUpsertRequest, requestId?: string): Promise<ChunkOutcome> {
    try {
      return { kind: 'written', response: await this.client.call(RECORDS_BULK_UPSERT, { identity, body: request, requestId }) };
    } catch (err) {
      // A refusal, or records unreachable, failing, timed out, answering what it does not declare, or its breaker open.
      return { kind: 'failed', reason: reasonOf(err) };
    }
  }

  /** Where the records stand in indexing (the older pipeline routes). */
  indexingSummary(identity: Identity, ids: string[]): Promise<IndexingSummary> {
    return this.client.call(RECORDS_INDEXING_SUMMARY, { identity, body: { ids } });
  }

  /** Queues the pending and failed records again for indexing (the older pipeline routes); answers how many were. */
  async requeue(identity: Identity, ids: string[]): Promise<number> {
    return (await this.client.call(RECORDS_REQUEUE, { identity, body: { ids } })).requeued;
  }

  // Records' side of a replace upload (contracts/replace.ts). Records' declared refusals (402 quota, 404 collection,
  // 409 in progress or no longer staged) pass through to the uploader.

  /** Opens the staging generation of a replace. */
  beginReplace(identity: Identity, collection: string, newRecords: number, requestId?: string): Promise<ReplaceBeginResponse> {
    return this.client.call(RECORDS_REPLACE_BEGIN, { identity, body: { collection, new_records: newRecords }, requestId });
  }

  /** Marks the staging upload of a replace finished with its result. */
  async finishReplace(identity: Identity, collection: string, generation: number, summary: object, requestId?: string): Promise<void> {
    await this.client.call(RECORDS_REPLACE_FINISH, { identity, body: { collection, generation, summary: summary as Record<string, unknown> }, requestId });
  }

  /** Gives the staging generation of a replace up (records archives it). */
  async abortReplace(identity: Identity, collection: string, generation: number, requestId?: string): Promise<void> {
    await this.client.call(RECORDS_REPLACE_ABORT, { identity, body: { collection, generation }, requestId });
  }
}
