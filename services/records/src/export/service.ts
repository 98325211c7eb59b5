import { randomUUID } from 'node:crypto';
import { ERRORS } from '@trove/platform';
import type { RecordRow } from '../records/store';
import type { ExportRunner } from './runner';
import { activeExports, createExport, findExport, partSize, readPartSlice, type ExportDb, type ExportFormat, type ExportRow } from './store';

/** A job as GET /export/{id}/status answers it; `error` only on a failed one. */
export interface ExportStatusView {
  export_id: string;
  status: ExportRow['status'];
  progress: number;
  total: number;
  error?: string;
}

/** A running job as GET /export/active lists it. */
export interface ActiveExportView extends ExportStatusView {
  collection: string;
  format: ExportFormat;
  created_at: string;
}

/** A finished export's file, to stream. */
export interface ExportFile {
  contentType: string;
  filename: string;
  bytes: number;
  /** The file's parts in order, read one at a time. */
  parts: AsyncIterable<Buffer>;
}

/**
 * A download reads the file in slices of this size: each travels from the database as a short-lived value (its text
 * form, twice its size, stays below V8's large-object threshold), so a download's garbage is collected young instead
 * of piling up in the old generation until a full collection.
 */
const DOWNLOAD_SLICE_BYTES = 32 * 1024;

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', json: 'application/json; charset=utf-8' };

function statusView(job: ExportRow): ExportStatusView {
  return {
    export_id: job.id,
    status: job.status,
    progress: job.progress,
    total: job.total,
    ...(job.status === 'failed' && job.failure ? { error: job.failure } : {}),
  };
}

/** Exports of a collection's records, started here and written in the background by the ExportRunner of any replica. */
export class ExportService {
  constructor(
    private readonly db: ExportDb,
    private readonly runner: ExportRunner,
  ) {}

  /** Starts an export of the collection's active generation; 404 when the tenant has no such collection. */
  async create(tenantId: string, input: { collection: string; format: ExportFormat; status: RecordRow['status'] }): Promise<ExportStatusView> {
    const job = await createExport(this.db, { id: randomUUID(), tenant_id: tenantId, collection: input.collection, format: input.format, record_status: input.status });
    if (!job) throw ERRORS.notFound(`Collection ${input.collection} not found`);
    this.runner.kick();
    return statusView(job);
  }

  async status(tenantId: string, id: string): Promise<ExportStatusView> {
    return statusView(await this.find(tenantId, id));
  }

  async active(tenantId: string): Promise<ActiveExportView[]> {
    return (await activeExports(this.db, tenantId)).map((job) => ({
      ...statusView(job),
      collection: job.collection,
      format: job.format,
      created_at: job.created_at.toISOString(),
    }));
  }

  /** The file of a completed export; 409 while it is processing or when it failed. */
  async download(tenantId: string, id: string): Promise<ExportFile> {
    const job = await this.find(tenantId, id);
    if (job.status === 'processing') throw ERRORS.conflict(`Export ${id} is still processing (${job.progress} of ${job.total} records written)`);
    if (job.status === 'failed') throw ERRORS.conflict(`Export ${id} failed: ${job.failure ?? 'unknown reason'}`);
    const { db } = this;
    // Only the expiry sweep deletes parts, so a part missing mid-download means the file expired meanwhile.
    const expired = () => new Error(`export ${job.id} expired while it was being downloaded`);
    async function* parts(): AsyncGenerator<Buffer> {
      for (let seq = 0; seq < job.parts; seq++) {
        const size = await partSize(db, job.id, seq);
        if (size === undefined) throw expired();
        for (let offset = 0; offset < size; offset += DOWNLOAD_SLICE_BYTES) {
          const slice = await readPartSlice(db, job.id, seq, offset, DOWNLOAD_SLICE_BYTES);
          if (!slice) throw expired();
          yield slice;
        }
      }
    }
    return {
      contentType: CONTENT_TYPES[job.format],
      filename: `${job.collection}-${job.id}.${job.format}`,
      bytes: job.bytes,
      parts: parts(),
    };
  }

  /** The tenant's job; 404 for an unknown, expired or another tenant's export alike. */
  private async find(tenantId: string, id: string): Promise<ExportRow> {
    const job = await findExport(this.db, tenantId, id);
    if (!job) throw ERRORS.notFound(`Export ${id} not found`);
    return job;
  }
}
