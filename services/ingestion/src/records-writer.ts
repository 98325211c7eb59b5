import { RECORDS_BULK_UPSERT_PATH, bulkUpsertResponse, type BulkUpsertRequest, type BulkUpsertResponse } from '@trove/contracts';
import { HttpError, type Identity, type ServiceClient } from '@trove/platform';

/**
 * What became of one chunk sent to records. Records writes a chunk in one transaction, so anything but `written`
 * means none of it was applied; `refused` names the items records found invalid (by position in the chunk).
 */
export type ChunkOutcome =
  | { kind: 'written'; response: BulkUpsertResponse }
  | { kind: 'refused'; invalid: Map<number, string>; reason: string }
  | { kind: 'failed'; reason: string };

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

/** The records a 422 names by their position: `loc` ['body', 'records', <i>, ...]. */
function invalidItems(body: unknown): Map<number, string> {
  const invalid = new Map<number, string>();
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(detail)) return invalid;
  for (const d of detail as { loc?: unknown; msg?: unknown }[]) {
    const loc = Array.isArray(d?.loc) ? d.loc : [];
    const i = Number(loc[2]);
    if (loc[0] !== 'body' || loc[1] !== 'records' || !Number.isInteger(i) || i < 0) return new Map();
    const field = loc.slice(3).map(String).join('.');
    const msg = `${field ? `${field}: ` : ''}${typeof d.msg === 'string' ? d.msg : 'invalid'}`;
    invalid.set(i, invalid.has(i) ? `${invalid.get(i)}; ${msg}` : msg);
  }
  return invalid;
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
    if (res.status === 422) {
      const invalid = invalidItems(res.body);
      if (invalid.size > 0) return { kind: 'refused', invalid, reason: detailText(res.body) };
    }
    return { kind: 'failed', reason: `records answered ${res.status}: ${detailText(res.body)}` };
  }
}
