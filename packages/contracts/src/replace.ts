import { z } from 'zod';
import { endpoint } from './endpoint';
import { collectionName } from './records';

/**
 * Blue-green replace of a collection. Ingestion parses the file, then asks records to begin a staging generation
 * (records checks the plan's record limit and that no other replace is in progress), writes the records into it
 * through the bulk upsert with `generation`, and marks the upload finished. The swap and the cancel are records'
 * portal routes; search learns of a swap from the generation_swapped records.changed event.
 */
export const replaceBeginRequest = z.strictObject({
  collection: collectionName,
  /** How many records the file holds: the tenant's other active records plus these must fit the plan (else 402). */
  new_records: z.number().int().min(0),
});
export type ReplaceBeginRequest = z.infer<typeof replaceBeginRequest>;

export const replaceBeginResponse = z.object({
  collection: z.string(),
  generation: z.number().int(),
  active_generation: z.number().int(),
});
export type ReplaceBeginResponse = z.infer<typeof replaceBeginResponse>;

export const replaceFinishRequest = z.strictObject({
  collection: collectionName,
  generation: z.number().int().min(1),
  /** The upload result as ingestion answered it, kept with the staging generation. */
  summary: z.record(z.string(), z.unknown()).optional(),
});
export type ReplaceFinishRequest = z.infer<typeof replaceFinishRequest>;

export const replaceAbortRequest = z.strictObject({
  collection: collectionName,
  generation: z.number().int().min(1),
});
export type ReplaceAbortRequest = z.infer<typeof replaceAbortRequest>;

/** Replace phases in the order of docs/behaviour/blue-green-replace.md; `processing` is a swap or cancel under way. */
export const REPLACE_PHASES = ['uploading', 'queued', 'indexing', 'completed_with_errors', 'ready', 'processing'] as const;
export type ReplacePhase = (typeof REPLACE_PHASES)[number];

/** GET /portal/collections/{name}/replace-status; every field but has_pending_replace is null when nothing is staged. */
export const replaceStatusAnswer = z.object({
  has_pending_replace: z.boolean(),
  staging_generation: z.number().int().nullable(),
  staging_status: z.literal('staging').nullable(),
  phase: z.enum(REPLACE_PHASES).nullable(),
  total: z.number().int().nullable(),
  indexed: z.number().int().nullable(),
  pending: z.number().int().nullable(),
  processing: z.number().int().nullable(),
  failed: z.number().int().nullable(),
  ready_to_swap: z.boolean().nullable(),
});
export type ReplaceStatus = z.infer<typeof replaceStatusAnswer>;

/** POST /portal/collections/{name}/swap. */
export const swapResult = z.object({
  collection: z.string(),
  old_generation: z.number().int(),
  new_generation: z.number().int(),
  old_record_count: z.number().int(),
  new_record_count: z.number().int(),
  /** Rows of the old generation permanently removed (archived ones included). */
  deleted: z.number().int(),
});
export type SwapResult = z.infer<typeof swapResult>;

/** POST /portal/collections/{name}/cancel-replace, and what an aborted replace upload archived. */
export const cancelReplaceResult = z.object({
  collection: z.string(),
  cancelled_generation: z.number().int(),
  records_archived: z.number().int(),
});
export type CancelReplaceResult = z.infer<typeof cancelReplaceResult>;

/** Opens a staging generation for a replace upload; 402 past the plan, 404 no such collection, 409 one in progress. */
export const RECORDS_REPLACE_BEGIN = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/replace/begin',
  summary: 'Opens the staging generation of a replace upload',
  body: replaceBeginRequest,
  answer: replaceBeginResponse,
  refusals: [402, 404, 409],
});

/** Marks the staging upload finished with its result; 409 when the replace was cancelled meanwhile. */
export const RECORDS_REPLACE_FINISH = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/replace/finish',
  summary: 'Marks the staging upload of a replace finished',
  body: replaceFinishRequest,
  status: 204,
  answer: z.undefined(),
  refusals: [404, 409],
});

/** An upload that could not write its whole file gives its staging up: archived, as a cancel does; 409 when no longer staged. */
export const RECORDS_REPLACE_ABORT = endpoint({
  service: 'records',
  method: 'POST',
  path: '/internal/records/replace/abort',
  summary: 'Gives the staging generation of a replace upload up',
  body: replaceAbortRequest,
  answer: cancelReplaceResult,
  refusals: [404, 409],
});

/** What POST /portal/collections/{name}/replace adds to the upload result. */
export interface ReplaceStaging {
  generation: number;
  status: 'staging';
  collection: string;
}
