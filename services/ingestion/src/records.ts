import { RECORDS_BULK_UPSERT, type BulkUpsertRequest, type BulkUpsertResponse } from '@trove/contracts';
import { HttpError, type Identity, type ServiceClient } from '@trove/platform';

/**
 * What became of one chunk sent to records. Records writes a chunk in one transaction, so `failed` means none of it
 * was applied. Records validates a chunk by the contract ingestion's record mapping has already checked every record
 * against (bulkUpsertItem), so a refusal (422) is no answer about one record to take out and resend: it is a chunk
 * that was not written, like any other failure.
 */
export type ChunkOutcome = { kind: 'written'; response: BulkUpsertResponse } | { kind: 'failed'; reason: string };

/** The port to records' bulk upsert: one call and one transaction per chunk. */
export interface RecordsWriter {
  upsert(identity: Identity, request: BulkUpsertRequest, requestId?: string): Promise<ChunkOutcome>;
}

/** Why a chunk was not written, in words for its dead letters: a refusal's detail (a 422's messages), or why records could not answer. */
function reasonOf(err: unknown): string {
  if (!(err instanceof HttpError)) return 'The records service is unavailable';
  if (typeof err.detail === 'string') return err.status === 503 ? err.detail : `records answered ${err.status}: ${err.detail}`;
  return `records answered ${err.status}: ${err.detail.map((d) => d.msg).join('; ') || 'invalid request'}`;
}

/** Records over HTTP through a ServiceClient, so calls share one circuit breaker. */
export class HttpRecordsWriter implements RecordsWriter {
  constructor(private readonly client: ServiceClient) {}

  async upsert(identity: Identity, request: BulkUpsertRequest, requestId?: string): Promise<ChunkOutcome> {
    try {
      return { kind: 'written', response: await this.client.call(RECORDS_BULK_UPSERT, { identity, body: request, requestId }) };
    } catch (err) {
      // A refusal, or records unreachable, failing, timed out, answering what it does not declare, or its breaker open.
      return { kind: 'failed', reason: reasonOf(err) };
    }
  }
}
