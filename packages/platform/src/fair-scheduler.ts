import type { Request, RequestHandler } from 'express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Config } from './config';
import { HttpError } from './errors';

export interface FairSchedulerOptions {
  /** What the scheduler guards, for its metrics (`search`, `gateway_upload`, …). */
  name: string;
  /** The kind of request it shares out, as a refusal says it ("Too many of your search requests…"); `name` by default. */
  what?: string;
  /**
   * Jobs running at once; one key (a tenant, a client address) runs at most `concurrency - 1` of them (at least one),
   * so a key arriving while another floods always finds a slot free.
   */
  concurrency: number;
  /** Jobs of one key waiting at most; one more is refused (`queue_full`). */
  maxQueuePerKey: number;
  /** Jobs waiting in all; past it the newest job of the longest queue is refused (`shed`). */
  maxQueue: number;
  /** How long a job may wait for a slot before it is refused (`timeout`). */
  maxWaitMs: number;
  /** Where its metrics are registered; none when absent. */
  registry?: Registry;
}

export type RefusalReason = 'queue_full' | 'shed' | 'timeout';

/**
 * A job the scheduler would not run, as the request that asked for it is answered: 429 when its key's queue was full
 * or the longest (the key is over its share), 503 when no slot came in time (the system is overloaded); both with
 * Retry-After.
 */
export class SchedulerRefusal extends HttpError {
  constructor(
    readonly reason: RefusalReason,
    /** When asking again is likely to be served (whole seconds, at least 1). */
    readonly retryAfterSeconds: number,
    what: string,
  ) {
    super(...refusalAnswer(reason, retryAfterSeconds, what));
    this.name = 'SchedulerRefusal';
  }
}

/** The status, code, detail and headers a refusal answers with. */
function refusalAnswer(reason: RefusalReason, retryAfterSeconds: number, what: string): [number, string, string, Record<string, string>] {
  const headers = { 'Retry-After': String(retryAfterSeconds) };
  if (reason === 'timeout') {
    return [503, 'service_unavailable', `The system is busy: no ${what} slot came free in time. Try again in ${retryAfterSeconds} seconds.`, headers];
  }
  return [429, 'too_many_requests', `Too many of your ${what} requests are waiting. Try again in ${retryAfterSeconds} seconds.`, headers];
}

interface Waiting {
  enqueuedAt: number;
  start: () => void;
  refuse: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

interface KeyState {
  running: number;
  queue: Waiting[];
}

interface SchedulerMetrics {
  queued: Gauge<'scheduler'>;
  running: Gauge<'scheduler'>;
  wait: Histogram<'scheduler'>;
  refused: Counter<'scheduler' | 'reason'>;
}

const metricsByRegistry = new WeakMap<Registry, SchedulerMetrics>();

/** The schedulers' metrics of a registry, one series per scheduler: made once, shared by every scheduler in it. */
function schedulerMetrics(registry: Registry): SchedulerMetrics {
  let metrics = metricsByRegistry.get(registry);
  if (!metrics) {
    const registers = [registry];
    const labelNames = ['scheduler'] as const;
    metrics = {
      queued: new Gauge({ name: 'trove_scheduler_queued', help: 'Jobs waiting for a slot, by scheduler', labelNames, registers }),
      running: new Gauge({ name: 'trove_scheduler_running', help: 'Jobs running, by scheduler', labelNames, registers }),
      wait: new Histogram({
        name: 'trove_scheduler_wait_seconds',
        help: 'How long jobs waited for a slot, by scheduler',
        labelNames,
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      }),
      refused: new Counter({ name: 'trove_scheduler_refused_total', help: 'Jobs a scheduler refused, by reason', labelNames: ['scheduler', 'reason'] as const, registers }),
    };
    metricsByRegistry.set(registry, metrics);
  }
  return metrics;
}

/** How long a key's last start is remembered for recentKeys. */
const FORGET_KEYS_AFTER_MS = 10 * 60_000;

/** Weight of the newest job in the running average of job durations (for Retry-After). */
const DURATION_WEIGHT = 0.2;

/**
 * Fair shares of a scarce resource between keys (tenants, client addresses): at most `concurrency` jobs run, at most
 * `concurrency - 1` of one key, and a freed slot goes to the next key in turn that has a job waiting (round robin
 * over keys, which is deficit round robin with jobs of equal cost). A key that sends more waits longer itself; a key
 * with one job waits for at most one turn. Queues are bounded per key and in all: a full key queue refuses its key's
 * new job, and a full scheduler sheds the newest job of the longest queue. A job that waits `maxWaitMs` is refused
 * rather than left to time out. Everything is per process: replicas each schedule their own slots.
 */
export class FairScheduler {
  private readonly keys = new Map<string, KeyState>();
  /** Keys with a job waiting, in the order they are served; a served key goes to the back. */
  private readonly turn: string[] = [];
  private running = 0;
  private queued = 0;
  private dispatching = false;
  /** When each key last started a job (pruned by recentKeys). */
  private readonly lastStarts = new Map<string, number>();
  private averageMs = 50;
  private readonly perKey: number;
  private readonly metrics?: SchedulerMetrics;

  constructor(private readonly opts: FairSchedulerOptions) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new RangeError(`concurrency must be a positive whole number, got ${opts.concurrency}`);
    this.perKey = Math.max(1, opts.concurrency - 1);
    this.metrics = opts.registry && schedulerMetrics(opts.registry);
  }

  /**
   * Keys that started a job in the last `windowMs` (or have one now): whether others share the resource lately,
   * not only at this instant (a tenant sending one request after another is between jobs most of the time).
   */
  recentKeys(windowMs: number): number {
    const now = performance.now();
    let count = this.keys.size;
    for (const [key, at] of this.lastStarts) {
      if (this.keys.has(key)) continue;
      if (now - at <= windowMs) count++;
      else if (now - at > FORGET_KEYS_AFTER_MS) this.lastStarts.delete(key);
    }
    return count;
  }

  /** Jobs waiting and running now, and the keys with jobs waiting. */
  get load(): { queued: number; running: number; waitingKeys: number } {
    return { queued: this.queued, running: this.running, waitingKeys: this.turn.length };
  }

  /**
   * Runs `work` once a slot is free for `key`, holding the slot until it settles. Rejects with SchedulerRefusal when
   * the job is refused, or with the signal's reason when it is aborted while waiting (it never runs then).
   */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.wait(key, this.stateOf(key), signal);
    const startedAt = performance.now();
    try {
      return await work();
    } finally {
      this.averageMs += DURATION_WEIGHT * (performance.now() - startedAt - this.averageMs);
      this.finished(key);
    }
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      state = { running: 0, queue: [] };
      this.keys.set(key, state);
    }
    return state;
  }

  private wait(key: string, state: KeyState, signal?: AbortSignal): Promise<void> {
    if (state.queue.length >= this.opts.maxQueuePerKey) return Promise.reject(this.refusal('queue_full', state.queue.length));
    if (this.queued >= this.opts.maxQueue) {
      const longest = this.longestQueue();
      // This key's own next job would make it the longest: it is the one refused.
      if (!longest || longest.state.queue.length <= state.queue.length) return Promise.reject(this.refusal('shed', state.queue.length));
      const dropped = longest.state.queue.pop()!;
      this.dequeued(longest.key, longest.state, dropped);
      this.forgetIfIdle(longest.key, longest.state);
      dropped.refuse(this.refusal('shed', longest.state.queue.length));
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (error: unknown) => {
        const index = state.queue.indexOf(waiting);
        if (index < 0) return;
        state.queue.splice(index, 1);
        this.dequeued(key, state, waiting);
        this.forgetIfIdle(key, state);
        waiting.refuse(error);
      };
      const onAbort = () => leave(signal!.reason);
      const waiting: Waiting = {
        enqueuedAt: performance.now(),
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        refuse: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
        timer: setTimeout(() => leave(this.refusal('timeout', this.queued)), this.opts.maxWaitMs),
      };
      if (signal?.aborted) {
        clearTimeout(waiting.timer);
        reject(signal.reason);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (state.queue.length === 0) this.turn.push(key);
      state.queue.push(waiting);
      this.queued++;
      this.metrics?.queued.set({ scheduler: this.opts.name }, this.queued);
      this.dispatchSoon();
    });
  }

  /** Drops the state of a key with nothing running or waiting. */
  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.running === 0 && state.queue.length === 0) this.keys.delete(key);
  }

  /** Takes a waiting job out of the books (it starts, or is refused); a key with nothing left waiting leaves the turn. */
  private dequeued(key: string, state: KeyState, waiting: Waiting): void {
    clearTimeout(waiting.timer);
    this.queued--;
    this.metrics?.queued.set({ scheduler: this.opts.name }, this.queued);
    if (state.queue.length === 0) {
      const at = this.turn.indexOf(key);
      if (at >= 0) this.turn.splice(at, 1);
    }
  }

  private started(key: string, state: KeyState, waitedMs: number): void {
    this.lastStarts.set(key, performance.now());
    state.running++;
    this.running++;
    this.metrics?.running.set({ scheduler: this.opts.name }, this.running);
    this.metrics?.wait.observe({ scheduler: this.opts.name }, waitedMs / 1000);
  }

  private finished(key: string): void {
    const state = this.keys.get(key)!;
    state.running--;
    this.running--;
    this.metrics?.running.set({ scheduler: this.opts.name }, this.running);
    this.forgetIfIdle(key, state);
    this.dispatchSoon();
  }

  /**
   * Hands out free slots once the event loop has taken in what arrived meanwhile (setImmediate runs after the poll
   * phase): a job that never waits for I/O (the embedded engine answers in the same thread) would otherwise start,
   * and finish, before any request that arrived during it was even read, and requests would be served in the order
   * the sockets are read, whoever sent them.
   */
  private dispatchSoon(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    setImmediate(() => {
      this.dispatching = false;
      this.dispatch();
    });
  }

  /** Gives free slots to waiting jobs, one key after the other in turn. */
  private dispatch(): void {
    let passes = 0;
    if (this.turn.length === 0) return;
    while (this.running < this.opts.concurrency && this.turn.length > 0 && passes < this.turn.length) {
      const key = this.turn.shift()!;
      const state = this.keys.get(key)!;
      if (state.running >= this.perKey) {
        // At its own limit: it keeps its place for the next free slot.
        this.turn.push(key);
        passes++;
        continue;
      }
      passes = 0;
      const waiting = state.queue.shift()!;
      this.dequeued(key, state, waiting);
      // Served, it goes to the back of the turn if it has more waiting.
      if (state.queue.length > 0) this.turn.push(key);
      this.started(key, state, performance.now() - waiting.enqueuedAt);
      waiting.start();
    }
  }

  private longestQueue(): { key: string; state: KeyState } | undefined {
    let found: { key: string; state: KeyState } | undefined;
    for (const key of this.turn) {
      const state = this.keys.get(key)!;
      if (!found || state.queue.length > found.state.queue.length) found = { key, state };
    }
    return found;
  }

  private refusal(reason: RefusalReason, ahead: number): SchedulerRefusal {
    this.metrics?.refused.inc({ scheduler: this.opts.name, reason });
    // The time to serve what is ahead at the current pace, at least a second.
    const seconds = Math.ceil(((ahead + 1) * this.averageMs) / this.opts.concurrency / 1000);
    return new SchedulerRefusal(reason, Math.min(60, Math.max(1, seconds)), this.opts.what ?? this.opts.name);
  }
}

/**
 * Express middleware that runs the rest of a request (its handler, until the response is finished or the client has
 * gone) as a job of `scheduler` under the request's key. A refusal is answered as it is (SchedulerRefusal); a client
 * that leaves while waiting leaves the queue.
 */
export function fairShare(scheduler: FairScheduler, keyOf: (req: Request) => string): RequestHandler {
  return (req, res, next) => {
    const gone = new AbortController();
    const onClose = () => gone.abort(new Error('client closed the request'));
    res.once('close', onClose);
    scheduler
      .run(
        keyOf(req),
        () =>
          new Promise<void>((resolve) => {
            res.off('close', onClose);
            if (res.writableFinished || res.destroyed) return resolve();
            res.once('close', () => resolve());
            next();
          }),
        gone.signal,
      )
      .catch((err: unknown) => {
        if (!gone.signal.aborted) next(err);
      });
  };
}

/**
 * A fair scheduler with the configured bounds (SCHEDULER_QUEUE_PER_TENANT, SCHEDULER_QUEUE_MAX, SCHEDULER_MAX_WAIT_MS)
 * unless `options` says otherwise: work already under way (an upload's chunks, a scheduled pull) waits longer and is
 * never refused for a full queue.
 */
export function configuredScheduler(
  config: Pick<Config, 'SCHEDULER_QUEUE_PER_TENANT' | 'SCHEDULER_QUEUE_MAX' | 'SCHEDULER_MAX_WAIT_MS'>,
  options: Pick<FairSchedulerOptions, 'name' | 'what' | 'concurrency' | 'registry'> & { maxWaitMs?: number; unboundedQueues?: boolean },
): FairScheduler {
  const { maxWaitMs, unboundedQueues, ...rest } = options;
  return new FairScheduler({
    ...rest,
    maxQueuePerKey: unboundedQueues ? Number.MAX_SAFE_INTEGER : config.SCHEDULER_QUEUE_PER_TENANT,
    maxQueue: unboundedQueues ? Number.MAX_SAFE_INTEGER : config.SCHEDULER_QUEUE_MAX,
    maxWaitMs: maxWaitMs ?? config.SCHEDULER_MAX_WAIT_MS,
  });
}
