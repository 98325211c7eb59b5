import type { Logger } from './logger';

export interface TallyOptions<Entry> {
  intervalMs: number;
  logger: Logger;
  /** What is counted, for the log ("search usage"). */
  what: string;
  /** Stores or sends one batch of entries; a rejection keeps them for the next flush. */
  write: (entries: Entry[]) => Promise<void>;
}

/**
 * Counts kept off a request's path: counting is a map increment, and what gathered leaves in one write every
 * `intervalMs`, on `flush()`, and on `stop()`. A failed write keeps its counts (added to what gathered since) for the
 * next flush, so a crash loses at most one interval. Flushes run one after another, never two at once.
 */
export class Tally<Entry extends { count: number }> {
  private pending = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: TallyOptions<Entry>) {}

  /** One more under `key`; `entry` describes the key the first time it is counted in a batch. */
  add(key: string, entry: () => Omit<Entry, 'count'>): void {
    const found = this.pending.get(key);
    if (found) found.count += 1;
    else this.pending.set(key, { ...entry(), count: 1 } as Entry);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Writes what has gathered; resolves once it is written (or logged as failed and kept). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.opts.write([...batch.values()]);
      } catch (err) {
        this.opts.logger.warn({ err }, `${this.opts.what} not written; kept for the next flush`);
        for (const [key, entry] of batch) {
          const kept = this.pending.get(key);
          if (kept) kept.count += entry.count;
          else this.pending.set(key, entry);
        }
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
