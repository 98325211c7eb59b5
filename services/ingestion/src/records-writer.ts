import { RECORDS_BULK_UPSERT_PATH, bulkUpsertResponse, type BulkUpsertRequest, type BulkUpsertResponse } from '@trove/contracts';
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

function detailText(body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((d) => (d as { msg?: unknown })?.msg).filter((m) => typeof m === 'string').join('; ') || 'invalid request';
  return 'no detail';
}

/** Records over HTTP through a ServiceClient, so calls share one circuit breaker. */
export class HttpRecordsWriter implements RecordsWriter {
  constructor(private readonly client: ServiceClient) {}

  async upsert(identity: Identity, request: BulkUpsertRequest, requestId?: string): Promise<ChunkOutcome> {
    let res: { status: number; body: unknown };
    try {
      res = await this.client.request<unknown>({ method: 'POST', path: RECORDS_BULK_UPSERT_PATH, identity, body: request, requestId });
    } catch (err) {
      // Unreachable, 5xx, timed out, or the breaker is open.
      const reason = err instanceof HttpError && typeof err.detail === 'string' ? err.detail : 'The records service is unavailable';
      return { kind: 'failed', reason };
    }
    if (res.status >= 200 && res.status < 300) {
      const parsed = bulkUpsertResponse.safeParse(res.body);
      if (parsed.success) return { kind: 'written', response: parsed.data };
      return { kind: 'failed', reason: `records answered ${res.status} with an unexpected body` };
    }
    return { kind: 'failed', reason: `records answered ${res.status}: ${detailText(res.body)}` };
  }
}
