import type { DeliveredEvent, EventBus, Subscription } from '@trove/bus';
import { TOPICS, acknowledgementsIn, recordIndexedEvent, swapAcknowledgement, swapsIn } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { acknowledgeSwaps } from '../replace/store';
import type { Db } from '../shared/schema';
import { acknowledgeIndexing, type Acknowledgement } from './store';
import type { IndexingWaiter } from './waiter';

export const INDEXING_STATUS_GROUP = 'records.indexing-status';

/**
 * Events per delivered batch. Each holds the acknowledgements of one indexed batch (up to the indexer's 1,000), so
 * fifty keep a delivery, and its one update statement, to about 50,000 rows (a few MB) however far the group lags,
 * where the bus's default of 500 could make it half a million.
 */
const MAX_EVENTS = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies search's acknowledgements (records.indexed, a list of them per event) to indexing_status. Only an acknowledgement of the record's
 * current version counts: an older one describes a state the record has left; `processing` (a pipeline job started)
 * only moves a pending record, never one already settled. Applying one neither changes the
 * version nor announces a change, so acknowledgements never loop back into the pipeline. Redelivery is harmless.
 */
export function indexingStatusHandler(db: Db, logger: Logger, onApplied?: (recordId: string, version: number, status: 'indexed' | 'failed') => void) {
  return async (events: DeliveredEvent[]): Promise<void> => {
    const acks: Acknowledgement[] = [];
    const swaps: Array<{ tenantId: string; collection: string; generation: number }> = [];
    for (const event of events) {
      for (const item of swapsIn(event.payload)) {
        const parsed = swapAcknowledgement.safeParse(item);
        if (parsed.success) swaps.push({ tenantId: parsed.data.tenant_id, collection: parsed.data.collection, generation: parsed.data.generation });
        else logger.warn({ offset: event.offset, key: event.key, issues: parsed.error.issues }, 'skipping malformed swap acknowledgement');
      }
      for (const item of acknowledgementsIn(event.payload)) {
        const parsed = recordIndexedEvent.safeParse(item);
        if (!parsed.success || !UUID.test(parsed.data.record_id)) {
          // A malformed acknowledgement would fail the same way on every delivery; skipping it keeps the group moving.
          logger.warn({ offset: event.offset, key: event.key, issues: parsed.error?.issues }, 'skipping malformed records.indexed acknowledgement');
          continue;
        }
        const ack = parsed.data;
        acks.push({ tenantId: ack.tenant_id, recordId: ack.record_id, version: ack.version, status: ack.status });
        if (ack.status === 'failed') logger.warn({ recordId: ack.record_id, version: ack.version, error: ack.error }, 'search failed to index record');
      }
    }
    await acknowledgeSwaps(db, swaps);
    for (const applied of await acknowledgeIndexing(db, acks)) {
      // A pipeline job that started is not yet an answer for whoever waits on the version.
      if (applied.status !== 'processing') onApplied?.(applied.recordId, applied.version, applied.status);
    }
  };
}

export function subscribeIndexingStatus(bus: EventBus, db: Db, logger: Logger, waiter?: IndexingWaiter): Promise<Subscription> {
  const onApplied = waiter && ((id: string, version: number, status: 'indexed' | 'failed') => waiter.acknowledged(id, version, status));
  return bus.subscribe({
    group: INDEXING_STATUS_GROUP,
    topics: [TOPICS.recordsIndexed],
    handler: indexingStatusHandler(db, logger, onApplied),
    maxBatchSize: MAX_EVENTS,
  });
}
