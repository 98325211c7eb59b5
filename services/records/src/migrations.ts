import { sql, type Transaction } from 'kysely';
import type { Migration } from '@trove/db';
import { contentHash } from './records/content-hash';

const BACKFILL_BATCH = 1000;

/** Gives every stored record its content hash, a batch at a time in id order. */
async function backfillContentHashes(trx: Transaction<any>): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await sql<{ id: string; name: string; collection_data: Record<string, unknown> }>`
      select id, name, collection_data from records.records where id > ${after}::uuid order by id limit ${BACKFILL_BATCH}
    `.execute(trx);
    if (rows.length === 0) return;
    const hashes = rows.map((r) => ({ id: r.id, content_hash: contentHash(r) }));
    await sql`
      update records.records as r set content_hash = x.content_hash
      from jsonb_to_recordset(${JSON.stringify(hashes)}::jsonb) as x(id uuid, content_hash text)
      where r.id = x.id
    `.execute(trx);
    after = rows[rows.length - 1]!.id;
  }
}

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
  {
    version: 2,
    name: 'content hash, live source ids unique, indexing backlog',
    up: async (trx) => {
      await sql.raw(`alter table records.records add column content_hash text`).execute(trx);
      await backfillContentHashes(trx);
      // Fails, naming the key, if two live records of a collection already share a source_id: which one an upload
      // should update is then a decision for a person, not for a migration.
      await sql
        .raw(
          `
          alter table records.records alter column content_hash set not null;
          drop index records.records_source;
          create unique index records_source_live on records.records (tenant_id, collection, source_id)
            where source_id is not null and status <> 'archived';
          -- The hash leads: its values are spread out, so inserts and probes touch one narrow key range each.
          create index records_content on records.records (content_hash, tenant_id, collection, record_type)
            where status <> 'archived';
          create index records_indexing_backlog on records.records (tenant_id)
            where indexing_status in ('pending', 'processing');
        `,
        )
        .execute(trx);
    },
  },
  {
    version: 3,
    name: 'indexing status in a table of its own',
    // Search acknowledges every version it indexes. On the records row, each acknowledgement rewrote a row of over
    // 1 KB and entered it again into every index of the table (indexing_status sat in two partial index predicates,
    // so the update could never be HOT): PostgreSQL rewrote every record once more, and kept a dead copy of it until a
    // vacuum (bench/RESULTS.md, "indexing status in a table of its own"). Here it rewrites about 60 bytes and one
    // primary key entry. Writes keep both rows at one version.
    up: `
      create table records.indexing (
        record_id uuid primary key,
        tenant_id text not null,
        version integer not null,
        status text not null check (status in ('pending', 'processing', 'indexed', 'failed'))
      );
      insert into records.indexing (record_id, tenant_id, version, status)
        select id, tenant_id, version, indexing_status from records.records;
      create index indexing_backlog on records.indexing (tenant_id) where status in ('pending', 'processing');
      create index indexing_failed on records.indexing (tenant_id) where status = 'failed';
      drop index records.records_failed;
      drop index records.records_indexing_backlog;
      alter table records.records drop column indexing_status;
    `,
  },
  {
    version: 4,
    name: 'collection listing',
    // GET /collections groups a tenant's active records by collection and record type and joins each to its indexing
    // row by id: this index holds all four, so the listing reads it alone instead of the records' wide rows.
    up: `
      create index records_collections on records.records (tenant_id, collection, record_type, generation) include (id)
        where status = 'active';
    `,
  },
  {
    version: 5,
    name: 'blue-green replace: staging generation',
    // A collection has at most one staging generation: replace begins by setting staging_generation where it is null,
    // so of two concurrent replaces one updates the row and the other finds it set (409). staging_status says whether
    // the upload into it finished; a crash mid-upload leaves 'uploading', which can be cancelled but not swapped.
    // Staging records live beside production under the same collection name, so a source_id is unique per
    // generation: a staging record never updates, or collides with, the production record of the same source.
    up: `
      alter table records.collections
        add column staging_generation integer,
        add column staging_status text check (staging_status in ('uploading', 'uploaded')),
        add column staging_started_at timestamptz(3),
        add column staging_summary jsonb,
        add constraint collections_staging_after_active check (staging_generation is null or staging_generation > active_generation),
        add constraint collections_staging_complete check ((staging_generation is null) = (staging_status is null));
      drop index records.records_source_live;
      create unique index records_source_live on records.records (tenant_id, collection, generation, source_id)
        where source_id is not null and status <> 'archived';
    `,
  },
  {
    version: 6,
    name: 'exports and their files',
    // A job and its file live in the database, so any replica can run, resume or serve it, and a restart loses
    // nothing. The file is written as parts of about 1 MB: each part commits with the job's position (the last record it
    // holds, in (created_at, id) order) and progress, so a job taken over after its process stopped resumes after
    // the last committed part and never writes a record twice. `owner` and `heartbeat_at` are the running process's
    // lease; `columns` is the CSV's collection_data header, fixed before the first row is written.
    up: `
      create table records.exports (
        id uuid primary key,
        tenant_id text not null,
        collection text not null,
        format text not null check (format in ('csv', 'json')),
        record_status text not null check (record_status in ('active', 'archived', 'draft')),
        generation integer not null,
        status text not null default 'processing' check (status in ('processing', 'completed', 'failed')),
        progress integer not null default 0,
        total integer not null,
        columns jsonb,
        after_created_at timestamptz(3),
        after_id uuid,
        parts integer not null default 0,
        bytes bigint not null default 0,
        owner uuid,
        heartbeat_at timestamptz(3) not null default now(),
        attempts integer not null default 0,
        failure text,
        created_at timestamptz(3) not null default now(),
        completed_at timestamptz(3),
        expires_at timestamptz(3)
      );
      create index exports_tenant on records.exports (tenant_id, created_at desc);
      create index exports_processing on records.exports (heartbeat_at) where status = 'processing';
      create index exports_expiry on records.exports (expires_at) where expires_at is not null;
      create table records.export_parts (
        export_id uuid not null references records.exports (id) on delete cascade,
        seq integer not null,
        data bytea not null,
        primary key (export_id, seq)
      );
      -- Uncompressed, so a download reads a part in small slices, each fetching only its own TOAST chunks (a
      -- compressed value is decompressed from its start for every slice); a file takes its own size on disk.
      alter table records.export_parts alter column data set storage external;
    `,
  },
  {
    version: 7,
    name: "older vocabulary: a collection's vocabulary, an entity's claim status",
    // A collection first created through the older vocabulary answers search with the older names too, so it says
    // which vocabulary created it. claim_status is null until a client of the older vocabulary sets it (unclaimed).
    // Both columns are added without rewriting the tables.
    up: `
      alter table records.collections add column vocabulary text not null default 'current'
        check (vocabulary in ('current', 'older'));
      alter table records.records add column claim_status text check (claim_status in ('unclaimed', 'pending', 'claimed'));
    `,
  },
  {
    version: 8,
    name: 'the generation search serves',
    // Set from search's acknowledgement of a swap: a swap answers once search serves the new generation, so the next
    // search finds it whichever process answers it (null: no swap acknowledged yet).
    up: `
      alter table records.collections add column searched_generation integer;
    `,
  },
];
