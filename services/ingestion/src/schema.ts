import type { ColumnType, Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export type UploadStatus = 'processing' | 'complete' | 'failed';
export type UploadSourceType = 'api' | 'file_upload' | 'webhook' | 'connector';

export interface UploadsTable {
  id: string;
  tenant_id: string;
  collection: string;
  record_type: string;
  source_type: UploadSourceType;
  source_name: string | null;
  status: Defaulted<UploadStatus>;
  submitted: Defaulted<number>;
  accepted: Defaulted<number>;
  rejected: Defaulted<number>;
  dedup_skipped: Defaulted<number>;
  file_hash: Defaulted<string | null>;
  processing_time_ms: Defaulted<number | null>;
  reconciliation_passed: Defaulted<boolean | null>;
  /** Renewed while a process runs the upload (UploadWatch). */
  heartbeat_at: Defaulted<Date>;
  pipeline_backpressure: Defaulted<boolean | null>;
  /** Why a failed upload stopped, the error's own text, for operators. */
  failure: Defaulted<string | null>;
  /** Why a failed upload stopped, in words a caller may read (the API's `failure`). */
  failure_reason: Defaulted<string | null>;
  /** Records in the upload, when known before they are read; null otherwise. */
  records_total: Defaulted<number | null>;
  /** Bytes of the file or body read so far, where bytes are counted; null otherwise. */
  bytes_read: Defaulted<number | null>;
  /** Bytes of the file or body in all, when known; null otherwise. */
  bytes_total: Defaulted<number | null>;
  created_at: Timestamp;
  completed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface DeadLettersTable {
  upload_id: string;
  record_index: number;
  error: string;
  record_data: ColumnType<Record<string, unknown>, string, string>;
}

export interface UploadRecordsTable {
  upload_id: string;
  first_index: number;
  record_ids: string[];
}

/** The tables of the `ingestion` schema, as kysely sees them. */
export interface IngestionSchema {
  'ingestion.uploads': UploadsTable;
  'ingestion.dead_letters': DeadLettersTable;
  'ingestion.upload_records': UploadRecordsTable;
}

export type Db = Kysely<IngestionSchema>;
