import type { UploadSummary } from './tally';

/** How often a running upload stores its counts and how far it has read, at most (when they changed). */
export const PROGRESS_INTERVAL_MS = 250;

/** What a running upload stores of its progress: its counts so far and the bytes it has read (null when not counted). */
export interface ProgressSnapshot {
  summary: UploadSummary;
  bytes_read: number | null;
}

/**
 * Stores a running upload's progress every PROGRESS_INTERVAL_MS while it changes, one write at a time, so GET
 * /uploads/{id} shows it from any process and an upload of one chunk writes nothing more than before. A write that
 * fails is reported and tried again at the next turn; the upload goes on.
 */
export class ProgressWriter {
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private stored = '';

  constructor(
    private readonly snapshot: () => ProgressSnapshot,
    private readonly write: (snapshot: ProgressSnapshot) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops writing; resolves once a write under way has ended (the final counts are the upload's own to store). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.writing;
  }

  private tick(): void {
    if (this.writing) return;
    const snapshot = this.snapshot();
    const key = JSON.stringify(snapshot);
    if (key === this.stored) return;
    this.writing = this.write(snapshot)
      .then(
        () => void (this.stored = key),
        (err: unknown) => this.onError(err),
      )
      .finally(() => (this.writing = undefined));
  }
}
