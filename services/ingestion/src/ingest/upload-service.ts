import { ERRORS } from '@trove/platform';
import type { Db } from '../schema';
import type { DeadLetter } from './tally';
import { deadLetterPage, findUpload, uploadRecordIds, type UploadRow } from './upload-store';

/** What the routes read of an upload the ingestor ran: its row, its dead letters, and the records it wrote. */
export class UploadService {
  constructor(private readonly db: Db) {}

  /** The tenant's upload, or 404 (another tenant's upload is indistinguishable from a missing one). */
  async get(tenantId: string, id: string, noun: 'Upload' | 'Ingestion' = 'Upload'): Promise<UploadRow> {
    const row = await findUpload(this.db, tenantId, id);
    if (!row) throw ERRORS.notFound(`${noun} ${id} not found`);
    return row;
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
