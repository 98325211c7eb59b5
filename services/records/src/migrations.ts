import type { Migration } from '@trove/db';

/** The `records` schema: the system of record for records and their collections. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'collections and records',
    up: `
      create table records.collections (
        tenant_id text not null,
        name text not null,
        default_visibility text not null default 'private' check (default_visibility in ('private', 'public')),
        active_generation integer not null default 1,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        primary key (tenant_id, name)
      );

      -- Timestamps keep millisecond precision so the list cursor, which carries created_at as a JavaScript date,
      -- names an exact position.
      create table records.records (
        id uuid primary key,
        tenant_id text not null,
        name text not null,
        description text,
        description_llm text not null,
        collection text not null,
        record_type text not null,
        collection_data jsonb not null default '{}'::jsonb,
        indexing_status text not null default 'pending'
          check (indexing_status in ('pending', 'processing', 'indexed', 'failed')),
        status text not null default 'active' check (status in ('active', 'archived', 'draft')),
        visibility text not null default 'private' check (visibility in ('private', 'public')),
        generation integer not null default 1,
        source_name text,
        source_id text,
        source_url text,
        source_type text not null check (source_type in ('api', 'file_upload', 'webhook', 'connector')),
        version integer not null default 1,
        -- Written by the store from the same tokenisation the list query uses, so both sides always agree.
        name_tsv tsvector not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );

      create index records_list on records.records (tenant_id, status, created_at desc, id desc);
      create index records_list_collection on records.records (tenant_id, collection, status, created_at desc, id desc);
      create index records_name_tsv on records.records using gin (name_tsv);
      create index records_failed on records.records (tenant_id) where indexing_status = 'failed';
      create index records_source on records.records (tenant_id, collection, source_id) where source_id is not null;
    `,
  },
];
