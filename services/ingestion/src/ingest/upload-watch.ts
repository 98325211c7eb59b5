import type { Logger } from '@trove/platform';
import type { Db } from '../schema';
import type { Ingestor } from './ingestor';
import { failAbandonedUploads, renewUploads } from './upload-store';

export interface UploadWatchOptions {
  db: Db;
  ingestor: Ingestor;
  logger: Logger;
  /** An upload whose heartbeat is older than this is taken for abandoned (UPLOAD_STALE_SECONDS). */
  staleSeconds: number;
}

/**
 * Keeps the uploads this process runs alive, and fails those whose process stopped (a crash or a kill mid-upload),
 * which would otherwise read as processing forever. Every replica does both; a heartbeat is renewed four times per
 * stale period, so a live upload is never taken for abandoned.
 */
export class UploadWatch {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;

  constructor(private readonly opts: UploadWatchOptions) {}

  /**
   * Sweeps at once (uploads a stopped process left are failed as soon as they are stale, not a period after a restart),
   * then renews and sweeps four times per stale period.
   */
  start(): void {
    if (this.timer) return;
    const pass = () => {
      this.pass ??= this.tick()
        .catch((err: unknown) => this.opts.logger.warn({ err }, 'renewing or sweeping uploads failed; trying again later'))
        .finally(() => (this.pass = undefined));
    };
    this.timer = setInterval(pass, (this.opts.staleSeconds * 1000) / 4);
    this.timer.unref();
    pass();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /** One renewal of this process's uploads and one sweep of abandoned ones. */
  async tick(): Promise<void> {
    const { db, ingestor, logger, staleSeconds } = this.opts;
    await renewUploads(db, ingestor.runningUploads());
    const failed = await failAbandonedUploads(db, staleSeconds);
    if (failed.length > 0) logger.warn({ uploads: failed }, 'failed uploads whose ingestion process stopped before they finished');
  }
}
