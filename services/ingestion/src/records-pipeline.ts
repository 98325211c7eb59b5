import { RECORDS_INDEXING_SUMMARY, RECORDS_REQUEUE, type IndexingSummary } from '@trove/contracts';
import type { Identity, ServiceClient } from '@trove/platform';

/**
 * Records' answers about where records stand in indexing, for the older pipeline routes; over the shared client.
 * Ingestion sends what records' contract asks for, so any answer but the declared one is records failing: 503.
 */
export class RecordsPipeline {
  constructor(private readonly client: ServiceClient) {}

  summary(identity: Identity, ids: string[]): Promise<IndexingSummary> {
    return this.client.call(RECORDS_INDEXING_SUMMARY, { identity, body: { ids } });
  }

  async requeue(identity: Identity, ids: string[]): Promise<number> {
    return (await this.client.call(RECORDS_REQUEUE, { identity, body: { ids } })).requeued;
  }
}
