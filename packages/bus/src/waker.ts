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
