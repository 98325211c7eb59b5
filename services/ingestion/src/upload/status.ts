import { UPLOAD_ERRORS, UPLOAD_STATUS } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { Response } from '../http';
import { ERRORS_IN_RESULT, type DeadLetter } from '../ingest/tally';
import type { UploadService } from '../ingest/upload-service';
import type { UploadRow } from '../ingest/upload-store';

/** Dead letters are read and written out this many at a time, so a long list never sits in memory whole. */
const ERRORS_PAGE = 1000;

export function iso(value: Date): string;
export function iso(value: Date | null): string | null;
export function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function statusView(row: UploadRow, errors: DeadLetter[]) {
  return {
    id: row.id,
    status: row.status,
    summary: { submitted: row.submitted, accepted: row.accepted, rejected: row.rejected, dedup_skipped: row.dedup_skipped },
    errors,
    metadata: {
      processing_time_ms: row.processing_time_ms,
      file_hash: row.file_hash,
      reconciliation_passed: row.reconciliation_passed,
      pipeline_backpressure: row.pipeline_backpressure,
    },
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}

/** Every dead letter of an upload, read and written out a page at a time so a long list never sits in memory whole. */
export async function writeDeadLetters(res: Response, uploads: UploadService, uploadId: string, view: (letter: DeadLetter) => unknown): Promise<void> {
  let page = await uploads.deadLetters(uploadId, -1, ERRORS_PAGE);
  res.status(200).type('application/json');
  res.write('[');
  let first = true;
  while (page.length > 0) {
    const text = page.map((l) => JSON.stringify(view(l))).join(',');
    res.write(first ? text : `,${text}`);
    first = false;
    if (page.length < ERRORS_PAGE) break;
    page = await uploads.deadLetters(uploadId, page[page.length - 1]!.record_index, ERRORS_PAGE);
  }
  res.end(']');
}

/**
 * Upload status and dead letters (/uploads; the older vocabulary's /ingestions are in older/routes.ts); another
 * tenant's upload is indistinguishable from a missing one (404).
 */
export function uploadStatusRoutes(router: Router, uploads: UploadService): void {
  serve(router, UPLOAD_STATUS, [requireScope('upload')], async ({ params }, req) => {
    const row = await uploads.get(tenantOf(req), params.upload_id);
    return statusView(row, await uploads.deadLetters(row.id, -1, ERRORS_IN_RESULT));
  });

  // The list is written out as it is read, so the handler answers itself.
  handle(router, UPLOAD_ERRORS, requireScope('upload'), async (req, res) => {
    const { upload_id } = parseInput(UPLOAD_ERRORS.params, req.params, 'path');
    const row = await uploads.get(tenantOf(req), upload_id);
    await writeDeadLetters(res, uploads, row.id, (l) => l);
  });
}
