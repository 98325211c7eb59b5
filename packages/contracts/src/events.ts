import { z } from 'zod';
import { recordSchema, visibility } from './records';

/**
 * records.changed: one event per record change, keyed by record id. `version` increases with every change of the
 * record, so a consumer ignores any version not newer than the one it has.
 */
/**
 * The collection's active generation when the change was written, so search can tell a staging record from a live
 * one without asking records. Absent in events written before it existed: the record's own generation is then taken.
 */
const activeGeneration = z.number().int().optional();

export const recordChangedEvent = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('upserted'),
    tenant_id: z.string(),
    record_id: z.string(),
    version: z.number().int(),
    record: recordSchema,
    active_generation: activeGeneration,
  }),
  z.object({
    kind: z.literal('archived'),
    tenant_id: z.string(),
    record_id: z.string(),
    version: z.number().int(),
    record: recordSchema,
    active_generation: activeGeneration,
  }),
  z.object({
    kind: z.literal('visibility'),
    tenant_id: z.string(),
    record_id: z.string(),
    version: z.number().int(),
    visibility,
    record: recordSchema,
    active_generation: activeGeneration,
  }),
  z.object({
    kind: z.literal('deleted'),
    tenant_id: z.string(),
    record_id: z.string(),
    version: z.number().int(),
    collection: z.string(),
    generation: z.number().int(),
  }),
  z.object({
    kind: z.literal('generation_swapped'),
    tenant_id: z.string(),
    record_id: z.string(),
    version: z.number().int(),
    collection: z.string(),
    old_generation: z.number().int(),
    new_generation: z.number().int(),
  }),
]);
export type RecordChangedEvent = z.infer<typeof recordChangedEvent>;

/** records.indexed: search acknowledges the versions it indexed, or failed to. */
export const recordIndexedEvent = z.object({
  tenant_id: z.string(),
  record_id: z.string(),
  version: z.number().int(),
  status: z.enum(['indexed', 'failed']),
  error: z.string().optional(),
});
export type RecordIndexedEvent = z.infer<typeof recordIndexedEvent>;

/** auth.events: gateways drop a cached key at once when it is revoked or rotated. */
export const authEvent = z.object({
  kind: z.enum(['key_revoked', 'key_rotated', 'key_expired']),
  tenant_id: z.string(),
  key_id: z.string(),
});
export type AuthEvent = z.infer<typeof authEvent>;

/** usage.events: requests, searches and record counts for billing and analytics. */
export const usageEvent = z.object({
  tenant_id: z.string(),
  kind: z.enum(['request', 'search', 'records']),
  count: z.number().int(),
  at: z.string(),
});
export type UsageEvent = z.infer<typeof usageEvent>;

/** billing.events: a tenant's plan changed. */
export const billingEvent = z.object({ kind: z.literal('plan_changed'), tenant_id: z.string(), plan: z.string() });
export type BillingEvent = z.infer<typeof billingEvent>;
