import {
  RECORDS_REPLACE_ABORT_PATH,
  RECORDS_REPLACE_BEGIN_PATH,
  RECORDS_REPLACE_FINISH_PATH,
  replaceBeginResponse,
  type ReplaceBeginResponse,
} from '@trove/contracts';
import { ERRORS, HttpError, type Identity, type ServiceClient } from '@trove/platform';

/** Records' side of a replace upload (contracts/replace.ts), over the shared client. */
export class RecordsReplace {
  constructor(private readonly client: ServiceClient) {}

  /** Opens the staging generation; records' refusals (402 quota, 404 collection, 409 in progress) pass through. */
  async begin(identity: Identity, collection: string, newRecords: number, requestId?: string): Promise<ReplaceBeginResponse> {
    const res = await this.client.request<unknown>({
      method: 'POST',
      path: RECORDS_REPLACE_BEGIN_PATH,
      identity,
      body: { collection, new_records: newRecords },
      requestId,
    });
    if (res.status === 200) {
      const parsed = replaceBeginResponse.safeParse(res.body);
      if (parsed.success) return parsed.data;
    }
    throw refusal(res);
  }

  /** Marks the staging upload finished with its result; 409 when the replace was cancelled meanwhile. */
  async finish(identity: Identity, collection: string, generation: number, summary: object, requestId?: string): Promise<void> {
    const res = await this.client.request<unknown>({
      method: 'POST',
      path: RECORDS_REPLACE_FINISH_PATH,
      identity,
      body: { collection, generation, summary },
      requestId,
    });
    if (res.status !== 204) throw refusal(res);
  }

  /** Gives the staging generation up (records archives it); 409 when it is no longer staged. */
  async abort(identity: Identity, collection: string, generation: number, requestId?: string): Promise<void> {
    const res = await this.client.request<unknown>({ method: 'POST', path: RECORDS_REPLACE_ABORT_PATH, identity, body: { collection, generation }, requestId });
    if (res.status !== 200) throw refusal(res);
  }
}

/** Records' refusals the caller is to see, by status, rebuilt from the one error catalogue. */
const PASSED_ON: Record<number, (detail: string) => HttpError> = {
  402: ERRORS.paymentRequired,
  404: ERRORS.notFound,
  409: ERRORS.conflict,
};

/** Records' 402, 404 and 409 are the caller's answer; anything else is records not doing its part. */
function refusal(res: { status: number; body: unknown }): HttpError {
  const detail = (res.body as { detail?: unknown } | undefined)?.detail;
  const passed = PASSED_ON[res.status];
  if (passed && typeof detail === 'string') return passed(detail);
  return ERRORS.unavailable(`The records service could not answer (status ${res.status}); try again shortly`);
}
