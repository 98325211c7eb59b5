import type { ColumnType, Kysely, Transaction } from 'kysely';
import type { ClaimStatus, VocabularyName } from '@trove/contracts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface RecordsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  description_llm: string;
  collection: string;
  record_type: string;
  collection_data: ColumnType<Record<string, unknown>, string, string>;
  status: 'active' | 'archived' | 'draft';
  visibility: 'private' | 'public';
  generation: number;
  source_name: string | null;
  source_id: string | null;
  source_url: string | null;
  source_type: 'api' | 'file_upload' | 'webhook' | 'connector';
  version: number;
  /** Set by clients of the older vocabulary only; null reads as unclaimed. */
  claim_status: ColumnType<ClaimStatus | null, ClaimStatus | null | undefined, ClaimStatus | null>;
  /** sha256 of the canonical JSON of name and collection_data (records/content-hash.ts), for dedup. */
  content_hash: string;
  name_tsv: ColumnType<string, unknown, unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type IndexingStatus = 'pending' | 'processing' | 'indexed' | 'failed';

/**
 * Where search stands with each record: the status of the record's current version (writes set it back to pending
 * with the version they create; search's acknowledgement of that version sets it to indexed or failed).
 */
export interface IndexingTable {
  record_id: string;
  tenant_id: string;
  version: number;
  status: IndexingStatus;
}

export interface CollectionsTable {
  tenant_id: string;
  name: string;
  default_visibility: 'private' | 'public';
  active_generation: ColumnType<number, number | undefined, number>;
  /** The generation a blue-green replace is writing, until it is swapped in or cancelled (at most one at a time). */
  staging_generation: ColumnType<number | null, number | null | undefined, number | null>;
  staging_status: ColumnType<'uploading' | 'uploaded' | null, 'uploading' | 'uploaded' | null | undefined, 'uploading' | 'uploaded' | null>;
  staging_started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The upload result of the file written into staging, as ingestion reported it when the upload finished. */
  staging_summary: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The generation search has acknowledged serving (a swap it applied); null before any swap. */
  searched_generation: ColumnType<number | null, number | null | undefined, number | null>;
  /** The vocabulary that first created the collection: its search results carry the older names too when `older`. */
  vocabulary: ColumnType<VocabularyName, VocabularyName | undefined, VocabularyName>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The tables of the `records` schema, as kysely sees them. */
export interface RecordsSchema {
  'records.records': RecordsTable;
  'records.collections': CollectionsTable;
  'records.indexing': IndexingTable;
}

export type Db = Kysely<RecordsSchema>;
export type Trx = Transaction<RecordsSchema>;
/** A query runs either on its own or inside a caller's transaction. */
export type Executor = Db | Trx;
