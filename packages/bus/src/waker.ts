/**
 * The sleep of a polling loop that a notification can end early. A notification that arrives while the loop is busy
 * is remembered, so the next idle sleep is skipped rather than the notification missed. Back-off sleeps ignore
 * notifications; only `interrupt` (stop) ends them.
 */
export class Waker {
  private notified = false;
  private endAny?: () => void;
  private endOnNotify?: () => void;
  /** An interrupt that came while no sleep was under way ends the next one at once. */
  private interruptPending = false;

  /** Called at the start of each pass: notifications from here on count for the next sleep. */
  reset(): void {
    this.notified = false;
  }

  notify(): void {
    this.notified = true;
    this.endOnNotify?.();
  }

  /**
   * Ends whatever sleep is under way, or the next one when none is: stop() may come while a pass is still running,
   * and the sleep after that pass must not hold the loop for a whole poll interval.
   */
  interrupt(): void {
    if (this.endAny) this.endAny();
    else this.interruptPending = true;
  }

  sleep(ms: number, opts: { untilNotified: boolean }): Promise<void> {
    if (this.interruptPending) {
      this.interruptPending = false;
      return Promise.resolve();
    }
    if (opts.untilNotified && this.notified) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.endAny = this.endOnNotify = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.endAny = done;
      this.endOnNotify = opts.untilNotified ? done : undefined;
    });
  }
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 30_000;

/** One polling loop: what it does each pass and what it does with a failure. */
export interface Polling {
  /** Whether to go on; checked before each pass, and after a failure before reporting it. */
  running(): boolean;
  /** One pass; answers how long to wait before the next (a notification ends the wait early), or 0 to go on at once. */
  pass(): Promise<number>;
  onError(err: unknown): void;
}

/**
 * Runs passes until stopped. A failed pass is reported and followed by a back-off that doubles up to 30 s and that
 * only `interrupt` ends; a pass that succeeds resets it.
 */
export async function runPolling(waker: Waker, polling: Polling): Promise<void> {
  let backoff = FIRST_BACKOFF_MS;
  while (polling.running()) {
    try {
      waker.reset();
      const idleMs = await polling.pass();
      backoff = FIRST_BACKOFF_MS;
      if (idleMs > 0) await waker.sleep(idleMs, { untilNotified: true });
    } catch (err) {
      if (!polling.running()) break;
      polling.onError(err);
      await waker.sleep(backoff, { untilNotified: false });
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
