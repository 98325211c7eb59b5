import type { IndexingSummary, ReplacePhase, ReplaceStatus } from '@trove/contracts';
import { ERRORS } from '@trove/platform';

/** What a write needs to know of its collection's generations. */
export interface Generations {
  active_generation: number;
  staging_generation: number | null;
  staging_status: 'uploading' | 'uploaded' | null;
}

/**
 * The generation a write puts its records in: the active one, or the replace's staging generation while its upload
 * runs. Once the upload is finished, swapped or cancelled nothing more enters it (409), so a late chunk cannot change
 * what the status reported ready, nor land in a generation a cancel has archived.
 */
export function writtenGeneration(collection: string, state: Generations, requested: number | undefined): number {
  if (requested === undefined) return state.active_generation;
  if (state.staging_generation !== requested || state.staging_status !== 'uploading') {
    throw ERRORS.conflict(`Generation ${requested} of collection ${collection} is not a replace upload in progress`);
  }
  return requested;
}

export const NO_REPLACE: ReplaceStatus = {
  has_pending_replace: false,
  staging_generation: null,
  staging_status: null,
  phase: null,
  total: null,
  indexed: null,
  pending: null,
  processing: null,
  failed: null,
  ready_to_swap: null,
};

/**
 * Where a staged replace stands: its upload first, then its records' indexing. Ready to swap only when the upload
 * finished and every staging record is indexed (none pending, processing or failed), and no swap or cancel is under
 * way (`busy`).
 */
export function replaceStatus(staging: { generation: number; uploaded: boolean; busy: boolean }, counts: IndexingSummary): ReplaceStatus {
  const waiting = counts.pending + counts.processing;
  let phase: ReplacePhase;
  if (staging.busy) phase = 'processing';
  else if (!staging.uploaded) phase = 'uploading';
  else if (counts.total > 0 && counts.pending === counts.total) phase = 'queued';
  else if (waiting > 0) phase = 'indexing';
  else if (counts.failed > 0) phase = 'completed_with_errors';
  else phase = 'ready';
  return {
    has_pending_replace: true,
    staging_generation: staging.generation,
    staging_status: 'staging',
    phase,
    total: counts.total,
    indexed: counts.indexed,
    pending: counts.pending,
    processing: counts.processing,
    failed: counts.failed,
    ready_to_swap: phase === 'ready',
  };
}
