import { INGESTION_ERRORS, INGESTION_STATUS, UPLOAD_ERRORS, UPLOAD_STATUS } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import { ERRORS_IN_RESULT, type DeadLetter } from '../domain/tally';
import type { Response } from '../http';
import { olderDeadLetter, olderStatus } from './vocabulary';
import type { UploadRow } from '../store/uploads';
import type { UploadService } from '../upload-service';

/** Dead letters are read and written out this many at a time, so a long list never sits in memory whole. */
const ERRORS_PAGE = 1000;

function iso(value: Date): string;
function iso(value: Date | null): string | null;
function iso(value: Date | null): string | null {
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

/** The older vocabulary's status read of an ingestion. */
function olderStatusView(row: UploadRow) {
  return {
    id: row.id,
    status: olderStatus(row.status),
    record_count: row.accepted,
    duplicate_count: row.dedup_skipped,
    error_count: row.rejected,
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}

/**
 * Upload status and dead letters, under both vocabularies (/uploads and /ingestions); another tenant's upload is
 * indistinguishable from a missing one (404).
 */
export function uploadRoutes(router: Router, uploads: UploadService): void {
  const load = (tenantId: string, id: string) => uploads.get(tenantId, id);

  serve(router, UPLOAD_STATUS, [requireScope('upload')], async ({ params }, req) => {
    const row = await load(tenantOf(req), params.upload_id);
    return statusView(row, await uploads.deadLetters(row.id, -1, ERRORS_IN_RESULT));
  });

  serve(router, INGESTION_STATUS, [requireScope('upload')], async ({ params }, req) => olderStatusView(await load(tenantOf(req), params.ingestion_id)));

  /** Every dead letter, read and written out a page at a time so a long list never sits in memory whole. */
  const writeDeadLetters = async (res: Response, uploadId: string, view: (letter: DeadLetter) => unknown) => {
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
  };

  // The lists are written out as they are read, so the handlers answer themselves.
  handle(router, UPLOAD_ERRORS, requireScope('upload'), async (req, res) => {
    const { upload_id } = parseInput(UPLOAD_ERRORS.params, req.params, 'path');
    const row = await load(tenantOf(req), upload_id);
    await writeDeadLetters(res, row.id, (l) => l);
  });

  handle(router, INGESTION_ERRORS, requireScope('upload'), async (req, res) => {
    const { ingestion_id } = parseInput(INGESTION_ERRORS.params, req.params, 'path');
    const row = await load(tenantOf(req), ingestion_id);
    await writeDeadLetters(res, row.id, olderDeadLetter);
  });
}
