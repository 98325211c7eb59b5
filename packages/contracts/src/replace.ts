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

/** The replace phases in the specification's order; `processing` is a swap or cancel under way. */
export const REPLACE_PHASES = ['uploading', 'queued', 'indexing', 'completed_with_errors', 'ready', 'processing'] as const;
export type ReplacePhase = (typeof REPLACE_PHASES)[number];

/** GET /portal/collections/{name}/replace-status; every field but has_pending_replace is null when nothing is staged. */
export interface ReplaceStatus {
  has_pending_replace: boolean;
  staging_generation: number | null;
  staging_status: 'staging' | null;
  phase: ReplacePhase | null;
  total: number | null;
  indexed: number | null;
  pending: number | null;
  processing: number | null;
  failed: number | null;
  ready_to_swap: boolean | null;
}

/** POST /portal/collections/{name}/swap. */
export interface SwapResult {
  collection: string;
  old_generation: number;
  new_generation: number;
  old_record_count: number;
  new_record_count: number;
  /** Rows of the old generation permanently removed (archived ones included). */
  deleted: number;
}

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
