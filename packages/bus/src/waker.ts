/**
 * The sleep of a polling loop that a notification can end early. A notification that arrives while the loop is busy
 * is remembered, so the next idle sleep is skipped rather than the notification missed. Back-off sleeps ignore
 * notifications; only `interrupt` (stop) ends them.
 */
export class Waker {
  private notified = false;
  private endAny?: () => void;
  private endOnNotify?: () => void;

  /** Called at the start of each pass: notifications from here on count for the next sleep. */
  reset(): void {
    this.notified = false;
  }

  notify(): void {
    this.notified = true;
    this.endOnNotify?.();
  }

  /** Ends whatever sleep is under way. */
  interrupt(): void {
    this.endAny?.();
  }

  sleep(ms: number, opts: { untilNotified: boolean }): Promise<void> {
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
