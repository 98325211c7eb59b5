import { sql, type Kysely } from '@trove/db';
import type { IndexChange } from '@trove/search-engine';

/** An upsert for the engine: what a pipeline job indexes. */
export type UpsertChange = Extract<IndexChange, { op: 'upsert' }>;

/** A claimed job: the version it indexes and the claims made of it so far, this one included. */
export interface PipelineJob {
  tenant_id: string;
  record_id: string;
  version: number;
  change: UpsertChange;
  attempts: number;
}

/** Names a job's version: a job whose record has since got a newer version is left to that version's run. */
export type JobVersion = Pick<PipelineJob, 'tenant_id' | 'record_id' | 'version'>;

/**
 * search.pipeline_jobs (migrations.ts): the older pipeline's queue. Any number of search processes share it: a job is
 * claimed by one of them (FOR UPDATE SKIP LOCKED), and every statement names the version it acts on, so a job
 * refreshed by a newer change while it ran is not lost.
 */

/**
 * Queues the changes, each replacing a queued or running job of an older version of its record (which starts again
 * from no attempts); an older change than the job's changes nothing.
 */
export async function enqueueJobs(db: Kysely<any>, changes: UpsertChange[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((change) => ({ tenant_id: change.document.tenant_id, record_id: change.document.record_id, version: change.document.version, change }));
  await sql`
    insert into search.pipeline_jobs as j (tenant_id, record_id, version, change)
    select x.tenant_id, x.record_id, x.version, x.change
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(tenant_id text, record_id text, version bigint, change jsonb)
    order by 1, 2
    on conflict (tenant_id, record_id) do update set
      version = excluded.version, change = excluded.change, attempts = 0, state = 'queued', run_after = now(), claimed_at = null
      where j.version < excluded.version
  `.execute(db);
}

/**
 * Claims up to `limit` due jobs, oldest first: queued ones whose time has come, and running ones claimed more than
 * `staleSeconds` ago (their process stopped). Each claim counts as an attempt.
 */
export async function claimJobs(db: Kysely<any>, limit: number, staleSeconds: number): Promise<PipelineJob[]> {
  const result = await sql<PipelineJob>`
    update search.pipeline_jobs j set state = 'running', claimed_at = now(), attempts = j.attempts + 1
    from (
      select tenant_id, record_id from search.pipeline_jobs
      where (state = 'queued' and run_after <= now())
        or (state = 'running' and claimed_at < now() - make_interval(secs => ${staleSeconds}))
      order by run_after
      limit ${limit}
      for update skip locked
    ) as due
    where j.tenant_id = due.tenant_id and j.record_id = due.record_id
    returning j.tenant_id, j.record_id, j.version::integer as version, j.change, j.attempts
  `.execute(db);
  return result.rows;
}

function keys(jobs: JobVersion[]): string {
  return JSON.stringify(jobs.map((j) => ({ tenant_id: j.tenant_id, record_id: j.record_id, version: j.version })));
}

/** Removes the jobs that are done, each only at the version that was done. */
export async function finishJobs(db: Kysely<any>, jobs: JobVersion[]): Promise<void> {
  if (jobs.length === 0) return;
  await sql`
    delete from search.pipeline_jobs j
    using jsonb_to_recordset(${keys(jobs)}::jsonb) as x(tenant_id text, record_id text, version bigint)
    where j.tenant_id = x.tenant_id and j.record_id = x.record_id and j.version = x.version
  `.execute(db);
}

/**
 * Queues the jobs again, due after `delayMs`; `refund` takes back the attempt their claim counted (a job that never
 * reached the engine, the breaker having opened meanwhile).
 */
export async function requeueJobs(db: Kysely<any>, jobs: JobVersion[], delayMs: number, refund = false): Promise<void> {
  if (jobs.length === 0) return;
  await sql`
    update search.pipeline_jobs j
    set state = 'queued', claimed_at = null, run_after = now() + make_interval(secs => ${delayMs / 1000}),
      attempts = j.attempts - ${refund ? 1 : 0}
    from jsonb_to_recordset(${keys(jobs)}::jsonb) as x(tenant_id text, record_id text, version bigint)
    where j.tenant_id = x.tenant_id and j.record_id = x.record_id and j.version = x.version and j.state = 'running'
  `.execute(db);
}

/**
 * Reclaims the space of finished jobs. Every job leaves dead row versions behind (claimed, requeued, deleted); a
 * server's autovacuum would reclaim them, but PGlite has none and a server may run with it off.
 */
export async function vacuumJobs(db: Kysely<any>): Promise<void> {
  await sql`vacuum search.pipeline_jobs`.execute(db);
}

/** Records of jobs waiting and running, each counted up to `limit` (the search health report is not authenticated). */
export async function countJobs(db: Kysely<any>, limit: number): Promise<{ queued: number; running: number }> {
  const result = await sql<{ queued: number; running: number }>`
    select
      (select count(*)::integer from (select 1 from search.pipeline_jobs where state = 'queued' limit ${limit}) q) as queued,
      (select count(*)::integer from (select 1 from search.pipeline_jobs where state = 'running' limit ${limit}) r) as running
  `.execute(db);
  return result.rows[0]!;
}
