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
  {
    version: 2,
    name: 'name keys and a vocabulary per collection for ranking and typo tolerance',
    // name_key is the name as query words read it (lowercase runs of letters and digits, one space apart), written
    // by the engine from now on; existing rows get PostgreSQL's nearest reading of it, and their text vectors lose
    // the generated description (built from the record's own fields, its template words matched every record). The vocabulary holds the
    // words of letters only (4 to 40 of them) that a collection's documents are indexed under: a query word is
    // expanded to its near words there. Words are never removed; a stale one expands to a term that matches nothing.
    up: `
      alter table search_engine.documents add column name_key text;
      update search_engine.documents
        set name_key = btrim(regexp_replace(lower(name), '[^[:alnum:]]+', ' ', 'g')),
          tsv = name_tsv || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
            || setweight(jsonb_to_tsvector('simple', data, '["string", "numeric"]'), 'C')
        where name is not null;
      create index documents_scope_name_key on search_engine.documents (tenant_id, collection, name_key) where searchable;
      create table search_engine.vocabulary (
        word text not null,
        tenant_id text not null,
        collection text not null,
        primary key (word, tenant_id, collection)
      );
      create index vocabulary_word_trgm on search_engine.vocabulary using gin (word gin_trgm_ops);
      insert into search_engine.vocabulary (word, tenant_id, collection)
        select distinct w.lexeme, d.tenant_id, d.collection
        from search_engine.documents d cross join lateral unnest(d.tsv) w
        where d.searchable and w.lexeme ~ '^[[:alpha:]]{4,40}$'
        on conflict do nothing;
    `,
  },
  {
    version: 3,
    name: 'the name is read from the weight-A part of tsv; name_tsv and its index go',
    // tsv begins with the name's vector at weight A (and nothing else is weight A), so a query's lexemes marked :A
    // match in the name alone. Dropping the copy makes every document about a tenth smaller and saves an index.
    up: `
      drop index if exists search_engine.documents_name_tsv;
      alter table search_engine.documents drop column name_tsv;
    `,
  },
  {
    version: 4,
    name: "the vocabulary a document's collection names itself in",
    // Null for the current vocabulary, so nearly every row stores nothing for it.
    up: `
      alter table search_engine.documents add column vocabulary text;
    `,
  },
  {
    version: 5,
    name: 'the values aggregation reads, narrow, written beside each document',
    // Aggregation reads every document in scope: on the documents table that is every column of every row (about
    // 1.5 KB a document). document_values holds what aggregation reads of each document (its scope columns and the
    // collection_data fields worth grouping and filtering: numbers, booleans, strings of at most 64 characters and
    // arrays of at most 32 of them), a few hundred bytes; the engine writes it in the statements that write
    // documents (writes.ts); nums holds the numbers among them again, so statistics read them without testing
    // each value's type. field_kinds names each field a scope has ever held in a shape document_values leaves
    // out or that asks for more work ('long': a longer string, a longer or nested array; 'array'): aggregation over
    // a long field reads the documents table, and groups of a field never an array skip unnesting. Kinds are never
    // removed (a field once long stays on the slower path, which answers the same). The functions below fill both
    // for documents written before this version (writes.ts decides the same in JavaScript: valueKind), then go.
    up: `
      create table search_engine.document_values (
        tenant_id text not null,
        record_id text not null,
        collection text not null,
        generation integer not null,
        status text,
        searchable boolean not null,
        visibility text,
        record_type text,
        data jsonb not null,
        nums jsonb not null,
        primary key (tenant_id, record_id)
      );
      create index document_values_scope on search_engine.document_values (tenant_id, collection) where searchable;
      create index document_values_public on search_engine.document_values (collection)
        where searchable and visibility = 'public';
      create table search_engine.field_kinds (
        tenant_id text not null,
        collection text not null,
        field text not null,
        kind text not null,
        primary key (tenant_id, collection, field, kind)
      );
      create function search_engine.value_kind(value jsonb) returns text language sql immutable as $fn$
        select case
          when jsonb_typeof(value) in ('number', 'boolean') then 'short'
          when jsonb_typeof(value) = 'string' then case when length(value #>> '{}') <= 64 then 'short' else 'long' end
          when jsonb_typeof(value) = 'array' then case
            when jsonb_array_length(value) <= 32 and not exists (
              select 1 from jsonb_array_elements(value) e
              where jsonb_typeof(e) in ('object', 'array') or (jsonb_typeof(e) = 'string' and length(e #>> '{}') > 64))
            then 'array' else 'long' end
          else 'none' end
      $fn$;
      insert into search_engine.document_values
          (tenant_id, record_id, collection, generation, status, searchable, visibility, record_type, data, nums)
        select d.tenant_id, d.record_id, d.collection, d.generation, d.status, d.searchable, d.visibility, d.record_type,
          (select coalesce(jsonb_object_agg(f.key, f.value), '{}') from jsonb_each(coalesce(d.data, '{}')) f
           where search_engine.value_kind(f.value) in ('short', 'array')),
          (select coalesce(jsonb_object_agg(f.key, f.value), '{}') from jsonb_each(coalesce(d.data, '{}')) f
           where jsonb_typeof(f.value) = 'number')
        from search_engine.documents d where not d.removed;
      insert into search_engine.field_kinds (tenant_id, collection, field, kind)
        select distinct d.tenant_id, d.collection, f.key, search_engine.value_kind(f.value)
        from search_engine.documents d cross join lateral jsonb_each(coalesce(d.data, '{}')) f
        where not d.removed and search_engine.value_kind(f.value) in ('long', 'array');
      drop function search_engine.value_kind(jsonb);
    `,
  },
  {
    version: 6,
    name: 'documents named as the query, found in the public index by name key',
    // A keyword query with more matches than it reads adds the documents whose name is the query (ranking.ts): by
    // (tenant_id, collection, name_key) in a tenant's collection, but the public index had no such index and read
    // every match to find them (the Open API's keyword search 6-15 ms slower than a tenant's at 100,000 records).
    // Name key first: a search of every public collection has no collection to look up by.
    up: `
      create index documents_public_name_key on search_engine.documents (name_key, collection)
        where searchable and visibility = 'public';
    `,
  },
];
