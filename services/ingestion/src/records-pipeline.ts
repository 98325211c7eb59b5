import {
  RECORDS_INDEXING_SUMMARY_PATH,
  RECORDS_REQUEUE_PATH,
  indexingSummary,
  requeueResponse,
  type IndexingSummary,
} from '@trove/contracts';
import { ERRORS, type Identity, type ServiceClient } from '@trove/platform';
import type { z } from 'zod';

/** Records' answers about where records stand in indexing, for the older pipeline routes; over the shared client. */
export class RecordsPipeline {
  constructor(private readonly client: ServiceClient) {}

  summary(identity: Identity, ids: string[]): Promise<IndexingSummary> {
    return this.call(identity, RECORDS_INDEXING_SUMMARY_PATH, ids, indexingSummary);
  }

  async requeue(identity: Identity, ids: string[]): Promise<number> {
    return (await this.call(identity, RECORDS_REQUEUE_PATH, ids, requeueResponse)).requeued;
  }

  private async call<T>(identity: Identity, path: string, ids: string[], schema: z.ZodType<T>): Promise<T> {
    const res = await this.client.request<unknown>({ method: 'POST', path, identity, body: { ids } });
    const parsed = res.status === 200 ? schema.safeParse(res.body) : undefined;
    if (parsed?.success) return parsed.data;
    // Ingestion sends what records' contract asks for; any other answer is records not doing its part.
    throw ERRORS.unavailable(`The records service could not answer (status ${res.status}); try again shortly`);
  }
}
