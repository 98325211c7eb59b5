import { z } from 'zod';
import { PLANS } from './plans';
import { recordSchema, visibility } from './records';
import { collectionVocabulary } from './vocabulary';

/** What every records.changed event names: the tenant, the record (its partition key) and the version announced. */
const change = { tenant_id: z.string(), record_id: z.string(), version: z.number().int() };

/**
 * A change that leaves the record in place carries its full state, and the collection's active generation when the
 * change was written, so search can tell a staging record from a live one without asking records. Absent in events
 * written before it existed: the record's own generation is then taken. `collection_vocabulary` is `older` for a
 * collection first created through the older vocabulary (its search results carry the older names too), absent
 * otherwise.
 */
const recordState = {
  ...change,
  record: recordSchema,
  active_generation: z.number().int().optional(),
  collection_vocabulary: collectionVocabulary.optional(),
};

/**
 * records.changed: one event per record change, keyed by record id. `version` increases with every change of the
 * record, so a consumer ignores any version not newer than the one it has.
 */
export const recordChangedEvent = z.discriminatedUnion('kind', [
  /**
   * `pipeline`: the write came through the older vocabulary's asynchronous pipeline
   * (docs/behaviour/older-vocabulary.md): search queues it as a job (pending, processing, then indexed or failed after
   * its retries) instead of indexing it with the batch.
   */
  z.object({ kind: z.literal('upserted'), ...recordState, pipeline: z.literal(true).optional() }),
  z.object({ kind: z.literal('archived'), ...recordState }),
  z.object({ kind: z.literal('visibility'), ...recordState, visibility }),
  z.object({ kind: z.literal('deleted'), ...change, collection: z.string(), generation: z.number().int() }),
  z.object({
    kind: z.literal('generation_swapped'),
    ...change,
    collection: z.string(),
    old_generation: z.number().int(),
    new_generation: z.number().int(),
  }),
]);
export type RecordChangedEvent = z.infer<typeof recordChangedEvent>;

/**
 * One acknowledgement: search indexed a version of a record, or failed to; or a pipeline job started indexing it
 * (`processing`, which only moves a pending record).
 */
export const recordIndexedEvent = z.object({
  ...change,
  status: z.enum(['processing', 'indexed', 'failed']),
  error: z.string().optional(),
});
export type RecordIndexedEvent = z.infer<typeof recordIndexedEvent>;

/**
 * records.indexed: search's acknowledgements of one indexed batch for one tenant, keyed by tenant id: a few events for
 * an upload instead of one per record. Before, each event was one acknowledgement; acknowledgementsIn reads both.
 */
export const recordsIndexedEvent = z.object({ acks: z.array(recordIndexedEvent), swaps: z.array(z.unknown()).optional() });
export type RecordsIndexedEvent = z.input<typeof recordsIndexedEvent>;

/** Search serves `generation` as the collection's active generation from now on (a blue-green swap it applied). */
export const swapAcknowledgement = z.object({ tenant_id: z.string(), collection: z.string(), generation: z.number().int() });
export type SwapAcknowledgement = z.infer<typeof swapAcknowledgement>;

/** The swap acknowledgements a records.indexed payload holds (none in events written before they existed), unparsed. */
export function swapsIn(payload: unknown): unknown[] {
  const swaps = (payload as { swaps?: unknown } | null)?.swaps;
  return Array.isArray(swaps) ? swaps : [];
}

const acknowledgementList = z.object({ acks: z.array(z.unknown()) });

/**
 * The acknowledgements a records.indexed payload holds, each still to be parsed with recordIndexedEvent (so a
 * malformed one is skipped alone): the list of a batch, or the payload itself when it is a single acknowledgement.
 */
export function acknowledgementsIn(payload: unknown): unknown[] {
  const list = acknowledgementList.safeParse(payload);
  return list.success ? list.data.acks : [payload];
}

/** auth.events: gateways drop a cached key at once when it is revoked or rotated. */
export const authEvent = z.object({
  kind: z.enum(['key_revoked', 'key_rotated', 'key_expired']),
  tenant_id: z.string(),
  key_id: z.string(),
});
export type AuthEvent = z.infer<typeof authEvent>;

/** A calendar month in UTC, YYYY-MM: the period usage is counted and billed in. */
export const USAGE_PERIOD_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
export const usagePeriod = z.string().regex(USAGE_PERIOD_PATTERN, { error: 'Input should be a month as YYYY-MM' });

/** The usage period (YYYY-MM, UTC) a moment falls in. */
export function usagePeriodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

const usageFact = { tenant_id: z.string(), at: z.iso.datetime() };

/**
 * usage.events: aggregated facts for usage, billing and the portal's quickstart, keyed by tenant id; never one event
 * per request. `searches`: private searches of a period, tallied in memory and flushed every few seconds by search
 * (event_id lets a consumer count each flush once under redelivery). `upload`: ingestion completed an upload.
 * `records`: one write transaction of records created records of these types. `requests`: key-authenticated API calls
 * of a period, tallied in memory and flushed by the gateway (event_id as for searches).
 */
export const usageEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('searches'), ...usageFact, event_id: z.uuid(), period: usagePeriod, count: z.number().int().positive() }),
  z.object({ kind: z.literal('upload'), ...usageFact, upload_id: z.string() }),
  z.object({ kind: z.literal('records'), ...usageFact, record_types: z.array(z.string()).min(1), created: z.number().int().positive() }),
  z.object({ kind: z.literal('requests'), ...usageFact, event_id: z.uuid(), period: usagePeriod, count: z.number().int().positive() }),
]);
export type UsageEvent = z.infer<typeof usageEvent>;

const TENANT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A usage.events payload as its consumers read it, the tenant id in lower case; undefined for one that breaks the
 * contract or names no tenant UUID (it would fail the same way on every delivery, so a consumer skips it).
 */
export function usageFactOf(payload: unknown): UsageEvent | undefined {
  const parsed = usageEvent.safeParse(payload);
  if (!parsed.success || !TENANT_UUID.test(parsed.data.tenant_id)) return undefined;
  return { ...parsed.data, tenant_id: parsed.data.tenant_id.toLowerCase() };
}

/**
 * billing.events: a tenant's plan changed, keyed by tenant id. `changed_at` orders the changes of one tenant: a
 * consumer keeps the plan of the latest it has seen, whatever order the events arrive in.
 */
export const billingEvent = z.object({
  kind: z.literal('plan_changed'),
  tenant_id: z.string(),
  plan: z.enum(PLANS),
  changed_at: z.iso.datetime({ offset: true }),
});
export type BillingEvent = z.infer<typeof billingEvent>;

/** A plan change as the consumers that keep a tenant's plan apply it. */
export interface PlanChange {
  tenantId: string;
  plan: BillingEvent['plan'];
  changedAt: Date;
}

/**
 * Reads a billing.events payload once for the consumers that keep tenants' plans (auth, connector): the change, with
 * the tenant id lower-cased, or undefined for a payload that breaks the contract (skipped: it would fail the same way
 * on every delivery).
 */
export function planChangeOf(payload: unknown): PlanChange | undefined {
  const parsed = billingEvent.safeParse(payload);
  if (!parsed.success || !TENANT_UUID.test(parsed.data.tenant_id)) return undefined;
  return { tenantId: parsed.data.tenant_id.toLowerCase(), plan: parsed.data.plan, changedAt: new Date(parsed.data.changed_at) };
}
