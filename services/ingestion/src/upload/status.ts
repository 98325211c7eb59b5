import type { RequestHandler } from 'express';
import { PORTAL_UPLOAD_ERRORS, PORTAL_UPLOAD_LIST, PORTAL_UPLOAD_STATUS, UPLOAD_ERRORS, UPLOAD_LIST, UPLOAD_STATUS } from '@trove/contracts';
import { handle, parseInput, requirePortalUser, requireScope, serve, tenantOf, type Router } from '@trove/platform';
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

/** An upload as GET /uploads lists it: where it writes, its counts and progress so far, and how it went. */
function listView(row: UploadRow) {
  return {
    id: row.id,
    status: row.status,
    collection: row.collection,
    record_type: row.record_type,
    source_type: row.source_type,
    source_name: row.source_name,
    summary: { submitted: row.submitted, accepted: row.accepted, rejected: row.rejected, dedup_skipped: row.dedup_skipped },
    progress: { records_read: row.submitted, records_total: row.records_total, bytes_read: row.bytes_read, bytes_total: row.bytes_total },
    failure: row.status === 'failed' ? row.failure_reason : null,
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

/** An upload as GET /uploads/{id} reads it: as listed, with its first dead letters. */
function statusView(row: UploadRow, errors: DeadLetter[]) {
  return { ...listView(row), errors };
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
 * The caller's uploads (/uploads: the list, each one's status and dead letters; the older vocabulary's /ingestions are
 * in older/routes.ts), and the same for a person signed in to the portal (/portal/uploads). The status of a running
 * upload shows its counts and progress so far (written by the process running it, whichever that is); another
 * tenant's upload is indistinguishable from a missing one (404).
 */
export function uploadStatusRoutes(router: Router, uploads: UploadService): void {
  const routes = [
    { list: UPLOAD_LIST, status: UPLOAD_STATUS, errors: UPLOAD_ERRORS, guard: requireScope('upload') },
    { list: PORTAL_UPLOAD_LIST, status: PORTAL_UPLOAD_STATUS, errors: PORTAL_UPLOAD_ERRORS, guard: requirePortalUser() },
  ] satisfies Array<{ list: typeof UPLOAD_LIST; status: typeof UPLOAD_STATUS; errors: typeof UPLOAD_ERRORS; guard: RequestHandler }>;
  for (const { list, status, errors, guard } of routes) {
    serve(router, list, [guard], async ({ query }, req) => {
      const page = await uploads.list(tenantOf(req), query);
      return { items: page.rows.map(listView), cursor: page.cursor, has_more: page.cursor !== null };
    });

    serve(router, status, [guard], async ({ params }, req) => {
      const row = await uploads.get(tenantOf(req), params.upload_id);
      return statusView(row, await uploads.deadLetters(row.id, -1, ERRORS_IN_RESULT));
    });

    // The list is written out as it is read, so the handler answers itself.
    handle(router, errors, guard, async (req, res) => {
      const { upload_id } = parseInput(errors.params, req.params, 'path');
      const row = await uploads.get(tenantOf(req), upload_id);
      await writeDeadLetters(res, uploads, row.id, (l) => l);
    });
  }
}
