import type { Migration } from '@trove/db';

/** The `search` schema: what the search service keeps besides the engine's indexes (whichever engine it runs). */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'the older pipeline: jobs',
    // One row per record awaiting the older pipeline, holding the newest version's change to index. A job is queued
    // (waiting for run_after) or running (claimed by a process at claimed_at; one whose process died is claimed
    // again once that is older than its timeout). attempts counts the claims so far.
    up: `
      create table search.pipeline_jobs (
        tenant_id text not null,
        record_id text not null,
        version bigint not null,
        change jsonb not null,
        attempts integer not null default 0,
        state text not null default 'queued' check (state in ('queued', 'running')),
        run_after timestamptz(3) not null default now(),
        claimed_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        primary key (tenant_id, record_id)
      );
      create index pipeline_jobs_due on search.pipeline_jobs (run_after) where state = 'queued';
      create index pipeline_jobs_claimed on search.pipeline_jobs (claimed_at) where state = 'running';
    `,
  },
  {
    version: 2,
    name: "collections' search settings",
    // One row per tenant collection whose settings were ever changed (settings-store.ts): the settings in full and
    // their version, raised by every change. Keyed by the collection's name, so a blue-green replace keeps them.
    up: `
      create table search.collection_settings (
        tenant_id text not null,
        collection text not null,
        settings jsonb not null,
        version integer not null,
        updated_at timestamptz(3) not null default now(),
        primary key (tenant_id, collection)
      );
    `,
  },
];
