import type { Migration } from '@trove/db';

/**
 * The `search_engine` schema. One row per record (tombstones included), flagged `searchable` when its status is
 * active and its generation is the collection's active one; every read index is partial on that flag, so staging
 * generations, drafts, archived records and tombstones cost the indexes nothing. The public index is the same rows
 * seen through partial indexes on `visibility = 'public'`, so a visibility change moves a record in or out in the
 * same statement that writes it.
 */
export const searchEngineMigrations: Migration[] = [
  {
    version: 1,
    name: 'documents, active generations and search indexes',
    up: `
      create extension if not exists pg_trgm;
      create table search_engine.collections (
        tenant_id text not null,
        collection text not null,
        active_generation integer not null,
        primary key (tenant_id, collection)
      );
      create table search_engine.documents (
        tenant_id text not null,
        record_id text not null,
        version bigint not null,
        removed boolean not null default false,
        searchable boolean not null default false,
        collection text,
        generation integer,
        record_type text,
        name text,
        description text,
        description_llm text,
        data jsonb,
        source_type text,
        status text,
        visibility text,
        updated_at text,
        identifiers text[] not null default '{}',
        name_tsv tsvector,
        tsv tsvector,
        primary key (tenant_id, record_id)
      );
      create index documents_generation on search_engine.documents (tenant_id, collection, generation);
      create index documents_scope_name on search_engine.documents
        (tenant_id, collection, (lower(name) collate "C"), record_id) where searchable;
      create index documents_public_name on search_engine.documents
        (collection, (lower(name) collate "C"), record_id) where searchable and visibility = 'public';
      create index documents_tsv on search_engine.documents using gin (tsv) where searchable;
      create index documents_name_tsv on search_engine.documents using gin (name_tsv) where searchable;
      create index documents_public_tsv on search_engine.documents using gin (tsv)
        where searchable and visibility = 'public';
      create index documents_identifiers on search_engine.documents using gin (identifiers) where searchable;
      create index documents_name_trgm on search_engine.documents using gin (lower(name) gin_trgm_ops)
        where searchable;
      create index documents_data on search_engine.documents using gin (data jsonb_path_ops) where searchable;
    `,
  },
];
