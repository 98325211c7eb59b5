import type { Transaction } from 'kysely';
import { TOPICS, type UsageEvent } from '@trove/contracts';
import type { ServiceContext } from '@trove/runtime';
import type { IngestionSchema } from '../schema';

/** Announces a completed upload inside the transaction that stores it as complete. */
export type UploadAnnouncer = (trx: Transaction<IngestionSchema>, upload: { tenantId: string; uploadId: string; at: Date }) => Promise<void>;

/**
 * The usage.events `upload` fact of a completed upload, written through the bus's outbox in the transaction that
 * marks the upload complete: the fact exists if and only if the completion does.
 */
export function uploadUsage(bus: ServiceContext['bus']): UploadAnnouncer {
  return (trx, { tenantId, uploadId, at }) => {
    const payload: UsageEvent = { kind: 'upload', tenant_id: tenantId, upload_id: uploadId, at: at.toISOString() };
    return bus.publishInTransaction(trx, [{ topic: TOPICS.usageEvents, key: tenantId, payload }]);
  };
}
