import CircuitBreaker from 'opossum';
import type { EventBus } from '@trove/bus';
import type { Cache } from '@trove/cache';
import type { RecordIndexedEvent } from '@trove/contracts';
import type { Kysely } from '@trove/db';
import type { Logger } from '@trove/platform';
import type { ApplyOutcome, SearchEngine } from '@trove/search-engine';
import { acknowledge, settle, upsertNamespaces } from './consumers/indexer';
import { claimJobs, countJobs, enqueueJobs, finishJobs, requeueJobs, vacuumJobs, type PipelineJob, type UpsertChange } from './store/pipeline-jobs';

export interface PipelineOptions {
  /** Records per job (PIPELINE_BATCH_SIZE). */
  batchSize: number;
  /** Jobs running at once in this process (PIPELINE_WORKER_CONCURRENCY). */
  concurrency: number;
  /** Retries of a failed job before its records are failed (PIPELINE_MAX_RETRIES). */
  maxRetries: number;
  /** How long a job may take (PIPELINE_JOB_TIMEOUT, in ms here). */
  jobTimeoutMs: number;
  /** Delay before the first retry; each next one waits twice as long (PIPELINE_RETRY_DELAY_MS). */
  retryDelayMs: number;
  /** Consecutive failed jobs that open the breaker (PIPELINE_BREAKER_FAILURES). */
  breakerFailures: number;
  /** How long an open breaker keeps new jobs from starting (PIPELINE_BREAKER_PAUSE_SECONDS, in ms here). */
  breakerPauseMs: number;
  /** How often an idle worker looks for due jobs (retries come due without anyone telling it). */
  pollMs?: number;
  /** Finished records after which an idle worker vacuums the jobs table (default 10,000; see vacuumJobs). */
  vacuumEvery?: number;
}

export interface PipelineDeps {
  db: Kysely<any>;
  engine: SearchEngine;
  cache: Cache;
  bus: EventBus;
  logger: Logger;
}

/** A job whose every record the engine refused: the job failed, as one the engine could not take at all. */
class EveryRecordFailed extends Error {
  constructor(readonly outcomes: ApplyOutcome[]) {
    super(outcomes[0]?.error ?? 'the engine refused every record of the job');
  }
}

const DEFAULT_POLL_MS = 500;
/** A running job whose process has not finished it this long after its timeout is taken to be orphaned. */
const ORPHAN_GRACE_SECONDS = 30;
const VACUUM_EVERY = 10_000;
/** The report counts queued and running records up to this many each. */
const REPORT_COUNT_LIMIT = 10_000;

/** The pipeline as /health/search reports it. */
export interface PipelineReport {
  /** Records waiting for a job (retries included) and records of running jobs, each counted up to 10,000. */
  queued: number;
  running: number;
  breaker: 'closed' | 'open' | 'half_open';
  /** Failed jobs since the last one that succeeded, in this process. */
  consecutive_failures: number;
}

/**
 * The older pipeline's worker (docs/behaviour/older-vocabulary.md, "The older pipeline"). Records written
 * through the older vocabulary arrive as jobs (enqueue); the worker claims them PIPELINE_BATCH_SIZE at a time, at
 * most PIPELINE_WORKER_CONCURRENCY jobs at once, announces them processing, indexes each job with one engine apply
 * under PIPELINE_JOB_TIMEOUT, and acknowledges its records indexed (completed, in the older names), or retries the
 * job later, up to PIPELINE_MAX_RETRIES times, before acknowledging them failed. An opossum breaker around the apply
 * opens after PIPELINE_BREAKER_FAILURES consecutive failed jobs: no job starts while it is open, and after
 * PIPELINE_BREAKER_PAUSE_SECONDS one job tries the engine again (half open), closing it on success.
 *
 * The queue is a table (store/pipeline-jobs.ts), so every search process can run a worker: a job is claimed by one,
 * and one whose process stopped is claimed again once its timeout has passed.
 */
export class PipelineWorker {
  private readonly breaker: CircuitBreaker<[UpsertChange[]], ApplyOutcome[]>;
  private consecutiveFailures = 0;
  private finishedSinceVacuum = 0;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly opts: PipelineOptions,
  ) {
    this.breaker = new CircuitBreaker(
      async (changes: UpsertChange[]) => {
        const outcomes = await deps.engine.apply(changes);
        if (outcomes.length > 0 && outcomes.every((o) => o.status === 'failed')) throw new EveryRecordFailed(outcomes);
        return outcomes;
      },
      {
        name: 'pipeline',
        timeout: opts.jobTimeoutMs,
        resetTimeout: opts.breakerPauseMs,
        // Opened by consecutive failures below, never by opossum's rolling error rate.
        volumeThreshold: Number.MAX_SAFE_INTEGER,
      },
    );
    this.breaker.on('success', () => (this.consecutiveFailures = 0));
    this.breaker.on('failure', () => {
      this.consecutiveFailures += 1;
      if (this.consecutiveFailures >= opts.breakerFailures && !this.breaker.opened) {
        deps.logger.warn({ failures: this.consecutiveFailures, pauseMs: opts.breakerPauseMs }, 'pipeline breaker open: no new jobs start until it half-opens');
        this.breaker.open();
      }
    });
    this.breaker.on('halfOpen', () => {
      deps.logger.info('pipeline breaker half open: one job tries the engine');
      this.nudge();
    });
    this.breaker.on('close', () => (this.consecutiveFailures = 0));
  }

  async report(): Promise<PipelineReport> {
    const counts = await countJobs(this.deps.db, REPORT_COUNT_LIMIT);
    const breaker = this.breaker.opened ? 'open' : this.breaker.halfOpen ? 'half_open' : 'closed';
    return { ...counts, breaker, consecutive_failures: this.consecutiveFailures };
  }

  /** Queues upserts as jobs and wakes the worker. */
  async enqueue(changes: UpsertChange[]): Promise<void> {
    await enqueueJobs(this.deps.db, changes);
    this.nudge();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the jobs under way (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    await Promise.allSettled([...this.running]);
    this.breaker.shutdown();
  }

  private nudge(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const pollMs = this.opts.pollMs ?? DEFAULT_POLL_MS;
    const staleSeconds = this.opts.jobTimeoutMs / 1000 + ORPHAN_GRACE_SECONDS;
    while (!this.stopped) {
      // While open, nothing starts; half open, one job at a time tries the engine.
      const slots = this.breaker.opened ? 0 : this.breaker.halfOpen ? 1 - this.running.size : this.opts.concurrency - this.running.size;
      if (slots <= 0) {
        await this.sleep(pollMs);
        continue;
      }
      let jobs: PipelineJob[];
      try {
        jobs = await claimJobs(this.deps.db, this.opts.batchSize, staleSeconds);
      } catch (err) {
        this.deps.logger.error({ err }, 'pipeline: claiming jobs failed');
        await this.sleep(pollMs);
        continue;
      }
      if (jobs.length === 0) {
        if (this.finishedSinceVacuum >= (this.opts.vacuumEvery ?? VACUUM_EVERY) && this.running.size === 0) {
          this.finishedSinceVacuum = 0;
          await vacuumJobs(this.deps.db).catch((err: unknown) => this.deps.logger.warn({ err }, 'pipeline: vacuuming the jobs table failed'));
        }
        await this.sleep(pollMs);
        continue;
      }
      const job = this.runJob(jobs).catch((err: unknown) => this.deps.logger.error({ err }, 'pipeline: a job could not be settled; it is claimed again after its timeout'));
      this.running.add(job);
      void job.finally(() => {
        this.running.delete(job);
        this.nudge();
      });
    }
  }

  /** One job: processing, the apply, then indexed, failed or a later retry for each record. */
  private async runJob(jobs: PipelineJob[]): Promise<void> {
    const { db, bus, cache, logger } = this.deps;
    await acknowledge(
      bus,
      jobs.map((j) => ({ tenant_id: j.tenant_id, record_id: j.record_id, version: j.version, status: 'processing' })),
    );
    let outcomes: ApplyOutcome[];
    try {
      outcomes = await this.breaker.fire(jobs.map((j) => j.change));
    } catch (err) {
      if (this.breaker.opened && (err as { code?: string }).code === 'EOPENBREAKER') {
        // Never reached the engine: the breaker opened while the job was being claimed. It waits out the pause.
        await requeueJobs(db, jobs, this.opts.breakerPauseMs, true);
        return;
      }
      const error = (err as Error).message;
      logger.warn({ err: error, records: jobs.length }, 'pipeline job failed');
      outcomes =
        err instanceof EveryRecordFailed ? err.outcomes : jobs.map((j) => ({ record_id: j.record_id, version: j.version, status: 'failed' as const, error }));
    }
    const byRecord = new Map(outcomes.map((o) => [o.record_id, o]));
    const done: PipelineJob[] = [];
    const retry: PipelineJob[] = [];
    const acks: RecordIndexedEvent[] = [];
    const namespaces: string[] = [];
    for (const job of jobs) {
      const outcome = byRecord.get(job.record_id);
      if (outcome?.status === 'indexed') {
        done.push(job);
        acks.push({ tenant_id: job.tenant_id, record_id: job.record_id, version: job.version, status: 'indexed' });
        namespaces.push(...upsertNamespaces(job.change.document));
      } else if (job.attempts <= this.opts.maxRetries) {
        retry.push(job);
      } else {
        done.push(job);
        acks.push({ tenant_id: job.tenant_id, record_id: job.record_id, version: job.version, status: 'failed', ...(outcome?.error ? { error: outcome.error } : {}) });
      }
    }
    const attempts = Math.max(1, ...retry.map((j) => j.attempts));
    await requeueJobs(db, retry, this.opts.retryDelayMs * 2 ** (attempts - 1));
    await settle(cache, bus, namespaces, acks);
    await finishJobs(db, done);
    this.finishedSinceVacuum += jobs.length;
  }
}
