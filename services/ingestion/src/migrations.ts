import type { Migration } from '@trove/db';

/** The `ingestion` schema: uploads with their outcome, and the dead letters of the records they rejected. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'uploads and dead letters',
    up: `
      create table ingestion.uploads (
        id uuid primary key,
        tenant_id text not null,
        collection text not null,
        record_type text not null,
        source_type text not null check (source_type in ('api', 'file_upload', 'webhook')),
        source_name text,
        status text not null default 'processing' check (status in ('processing', 'complete', 'failed')),
        submitted integer not null default 0,
        accepted integer not null default 0,
        rejected integer not null default 0,
        dedup_skipped integer not null default 0,
        file_hash text,
        processing_time_ms double precision,
        reconciliation_passed boolean,
        pipeline_backpressure boolean,
        -- Why a failed upload stopped; logged and kept for operators, not part of the API.
        failure text,
        created_at timestamptz(3) not null default now(),
        completed_at timestamptz(3)
      );

      create index uploads_tenant on ingestion.uploads (tenant_id, created_at desc);

      create table ingestion.dead_letters (
        upload_id uuid not null references ingestion.uploads (id) on delete cascade,
        record_index integer not null,
        error text not null,
        record_data jsonb not null,
        primary key (upload_id, record_index)
      );
    `,
  },
  {
    version: 2,
    name: 'records each upload wrote',
    // One row per written chunk (its first item's index and the ids it created or updated), for the older pipeline
    // routes, which report and requeue "the entities of an ingestion".
    up: `
      create table ingestion.upload_records (
        upload_id uuid not null references ingestion.uploads (id) on delete cascade,
        first_index integer not null,
        record_ids uuid[] not null,
        primary key (upload_id, first_index)
      );
    `,
  },
  {
    version: 3,
    name: 'heartbeats of running uploads',
    // A process renews the uploads it runs; one whose heartbeat stops (the process died mid-upload) is failed by a
    // sweep instead of reading as processing forever. Rows already there start from the migration's time.
    up: `
      alter table ingestion.uploads add column heartbeat_at timestamptz(3) not null default now();
      create index uploads_running on ingestion.uploads (heartbeat_at) where status = 'processing';
    `,
  },
  {
    version: 4,
    name: 'connector uploads',
    // A connector pull is one upload of source_type connector (records already accepts that source type).
    up: `
      alter table ingestion.uploads drop constraint uploads_source_type_check;
      alter table ingestion.uploads add constraint uploads_source_type_check
        check (source_type in ('api', 'file_upload', 'webhook', 'connector'));
    `,
  },
  {
    version: 5,
    name: 'progress of running uploads',
    // A running upload writes its counts and how far it has read every fraction of a second (GET /uploads/{id} shows
    // them, from any process), and the tenant's uploads are listed by status, newest first (GET /uploads). A failed
    // upload keeps why in words a caller may read (`failure_reason`, the API's `failure`), beside the operators' text.
    up: `
      alter table ingestion.uploads
        add column records_total integer,
        add column bytes_read bigint,
        add column bytes_total bigint,
        add column failure_reason text;
      create index uploads_tenant_status on ingestion.uploads (tenant_id, status, created_at desc, id desc);
    `,
  },
];
