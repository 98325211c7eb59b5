import { RECORDS_REPLACE_ABORT, RECORDS_REPLACE_BEGIN, RECORDS_REPLACE_FINISH, type ReplaceBeginResponse } from '@trove/contracts';
import type { Identity, ServiceClient } from '@trove/platform';

/**
 * Records' side of a replace upload (contracts/replace.ts), over the shared client. Records' declared refusals (402
 * quota, 404 collection, 409 in progress or no longer staged) pass through to the uploader; anything else is 503.
 */
export class RecordsReplace {
  constructor(private readonly client: ServiceClient) {}

  /** Opens the staging generation. */
  begin(identity: Identity, collection: string, newRecords: number, requestId?: string): Promise<ReplaceBeginResponse> {
    return this.client.call(RECORDS_REPLACE_BEGIN, { identity, body: { collection, new_records: newRecords }, requestId });
  }

  /** Marks the staging upload finished with its result. */
  async finish(identity: Identity, collection: string, generation: number, summary: object, requestId?: string): Promise<void> {
    await this.client.call(RECORDS_REPLACE_FINISH, { identity, body: { collection, generation, summary: summary as Record<string, unknown> }, requestId });
  }

  /** Gives the staging generation up (records archives it). */
  async abort(identity: Identity, collection: string, generation: number, requestId?: string): Promise<void> {
    await this.client.call(RECORDS_REPLACE_ABORT, { identity, body: { collection, generation }, requestId });
  }
}
