import { ERRORS, decodeListCursor, encodeListCursor, validationError, type ListPosition } from '@trove/platform';
import type { Db, UploadStatus } from '../schema';
import type { DeadLetter } from './tally';
import { deadLetterPage, findUpload, listUploads, uploadRecordIds, type UploadRow } from './upload-store';

/** One page of a tenant's uploads, and where the next one starts (null after the last). */
export interface UploadPage {
  rows: UploadRow[];
  cursor: string | null;
}

/** What the routes read of an upload the ingestor ran: its row, its dead letters, and the records it wrote. */
export class UploadService {
  constructor(private readonly db: Db) {}

  /** The tenant's upload, or 404 (another tenant's upload is indistinguishable from a missing one). */
  async get(tenantId: string, id: string, noun: 'Upload' | 'Ingestion' = 'Upload'): Promise<UploadRow> {
    const row = await findUpload(this.db, tenantId, id);
    if (!row) throw ERRORS.notFound(`${noun} ${id} not found`);
    return row;
  }

  /** The tenant's uploads newest first, of one status when given, a page of `limit` after `cursor` (422 for a cursor not issued here). */
  async list(tenantId: string, opts: { status?: UploadStatus; cursor?: string; limit: number }): Promise<UploadPage> {
    let after: ListPosition | undefined;
    if (opts.cursor !== undefined) {
      after = decodeListCursor(opts.cursor);
      if (!after) throw validationError(['query', 'cursor'], 'Not a cursor of this listing: pass the cursor of the previous page as it was', 'value_error', opts.cursor);
    }
    // One more than asked tells whether another page follows.
    const rows = await listUploads(this.db, tenantId, { status: opts.status, after, limit: opts.limit + 1 });
    const page = rows.slice(0, opts.limit);
    const last = page[page.length - 1];
    return { rows: page, cursor: rows.length > opts.limit && last ? encodeListCursor({ createdAt: new Date(last.created_at), id: last.id }) : null };
  }

  /** At most `limit` dead letters of the upload, in record order, after the record index `afterIndex` (-1: from the first). */
  deadLetters(uploadId: string, afterIndex: number, limit: number): Promise<DeadLetter[]> {
    return deadLetterPage(this.db, uploadId, afterIndex, limit);
  }

  /** The ids of the records the upload wrote (created or updated), in item order, `pageSize` at a time. */
  recordIds(uploadId: string, pageSize: number): AsyncIterable<string[]> {
    return uploadRecordIds(this.db, uploadId, pageSize);
  }
}
