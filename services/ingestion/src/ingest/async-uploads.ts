import { ERRORS, HttpError, type Logger } from '@trove/platform';
import { UnparseableFileError } from '../parsers/types';
import { UploadAborted, UploadInterrupted, type BeforeComplete, type Ingestor, type SubmittedItem, type UploadProgress, type UploadTarget } from './ingestor';

/**
 * Uploads of one tenant written asynchronously at once in a process. Past it a new one is refused (429) before its
 * body is read: the gateway shares out upload requests between tenants only until they are answered, and an
 * asynchronous one is answered before its records are written.
 */
export const ASYNC_UPLOADS_PER_TENANT = 2;
/** Uploads written asynchronously at once in a process, all tenants together (each holds about four chunks in memory). */
export const ASYNC_UPLOADS_MAX = 8;

/** Why an upload running asynchronously stopped when its process did. */
export const STOPPED = 'interrupted: the ingestion service stopped before the upload finished; records written before stay, send the upload again for the rest';

/** A place for one asynchronous upload, held from its request's start; released when the upload ends or is not started. */
interface AsyncSlot {
  release(): void;
}

/** An asynchronous upload whose body has arrived: where its records go, what is known of its size, and what it runs. */
export interface AsyncUpload {
  target: UploadTarget;
  progress: UploadProgress;
  job: AsyncJob;
}

/** What an asynchronous upload runs once it is registered and answered. */
export interface AsyncJob {
  /** Its items (read once). */
  items(): AsyncIterable<SubmittedItem> | Iterable<SubmittedItem>;
  fileHash(): string | Promise<string>;
  beforeComplete?: BeforeComplete;
  /** Runs when the upload failed (after it is stored as failed) or could not be registered, before cleanup. */
  onFailure?(err: unknown): Promise<void>;
  /** Runs once the upload has ended, whatever the outcome, or when it could not be registered (a temporary file removed). */
  cleanup?(): Promise<void>;
}

export interface AsyncUploadsOptions {
  ingestor: Ingestor;
  logger: Logger;
  /** How long stop() lets running uploads finish before it interrupts them (SHUTDOWN_TIMEOUT_MS). */
  graceMs: number;
  perTenant?: number;
  max?: number;
}

/** The items, ending the upload with the signal's reason once it is aborted. */
export async function* abortable<T>(items: AsyncIterable<T> | Iterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  for await (const item of items) {
    signal.throwIfAborted();
    yield item;
  }
}

/** Whether an upload's failure is the caller's to act on (a file, a refusal, an interruption), not a fault of ours. */
function expected(err: unknown): boolean {
  return err instanceof UnparseableFileError || err instanceof UploadInterrupted || (err instanceof HttpError && err.status < 500);
}

/**
 * The uploads answered asynchronously (`Prefer: respond-async`, docs/behaviour/ingestion.md "Asynchronous uploads"):
 * registered as processing and answered 202 once their body has arrived, then written in the background by the same
 * ingestor as any upload. Bounded per tenant and per process; on stop, given SHUTDOWN_TIMEOUT_MS to finish, then
 * interrupted and stored as failed with what they wrote (their heartbeat would otherwise leave them processing until
 * the sweep of abandoned uploads).
 */
export class AsyncUploads {
  private readonly running = new Map<Promise<void>, AbortController>();
  private readonly perTenant = new Map<string, number>();
  private held = 0;
  private stopping = false;

  constructor(private readonly opts: AsyncUploadsOptions) {}

  /**
   * Takes an asynchronous upload of the tenant: holds a place for it (or refuses it, 429, before its body is read),
   * receives it (`receive`: its body read whole, checked, and kept where its job reads it), registers it as processing
   * and runs its job in the background. Resolves with the upload's id once it is registered, which is when the caller
   * answers 202; a refusal of `receive` is thrown as it is.
   */
  async accept(tenantId: string, receive: () => Promise<AsyncUpload>): Promise<string> {
    const slot = this.reserve(tenantId);
    let upload: AsyncUpload;
    try {
      upload = await receive();
    } catch (err) {
      slot.release();
      throw err;
    }
    return this.start(slot, upload);
  }

  /** Holds a place for the tenant's asynchronous upload, or refuses it (429) while the tenant or the process runs its most. */
  private reserve(tenantId: string): AsyncSlot {
    const perTenant = this.opts.perTenant ?? ASYNC_UPLOADS_PER_TENANT;
    const max = this.opts.max ?? ASYNC_UPLOADS_MAX;
    if (this.stopping) throw ERRORS.unavailable('The ingestion service is stopping; send the upload again shortly', { 'Retry-After': '1' });
    const mine = this.perTenant.get(tenantId) ?? 0;
    if (mine >= perTenant) {
      throw ERRORS.tooManyRequests(
        `${mine} of your uploads are already being written asynchronously; send this one once one of them has finished (GET /uploads?status=processing)`,
        { 'Retry-After': '1' },
        'async_uploads',
      );
    }
    if (this.held >= max) {
      throw ERRORS.tooManyRequests(`${this.held} uploads are being written asynchronously, the most at once; send this one again shortly`, { 'Retry-After': '1' }, 'async_uploads');
    }
    this.perTenant.set(tenantId, mine + 1);
    this.held++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        const left = (this.perTenant.get(tenantId) ?? 1) - 1;
        if (left === 0) this.perTenant.delete(tenantId);
        else this.perTenant.set(tenantId, left);
      },
    };
  }

  /**
   * Registers the upload as processing and runs the job in the background; resolves with the upload's id once it is
   * registered. A failure to register is thrown (after cleanup); one after is stored with the upload (failed, with its
   * reason) and logged.
   */
  private async start(slot: AsyncSlot, { target, progress, job }: AsyncUpload): Promise<string> {
    let upload;
    try {
      upload = await this.opts.ingestor.begin(target, progress);
    } catch (err) {
      await job.onFailure?.(err).catch((e: unknown) => this.opts.logger.error({ err: e }, 'handling an upload that could not be registered failed'));
      await job.cleanup?.().catch((e: unknown) => this.opts.logger.warn({ err: e }, 'cleaning up after an upload failed'));
      slot.release();
      throw err;
    }
    const { uploadId } = upload;
    const controller = new AbortController();
    const done = (async () => {
      try {
        const result = await upload.run(abortable(job.items(), controller.signal), () => job.fileHash(), job.beforeComplete);
        this.opts.logger.debug({ uploadId, summary: result.summary }, 'asynchronous upload complete');
      } catch (err) {
        const cause = err instanceof UploadAborted ? err.cause : err;
        if (expected(cause)) this.opts.logger.info({ uploadId, reason: cause instanceof Error ? cause.message : String(cause) }, 'asynchronous upload failed');
        else this.opts.logger.error({ err: cause, uploadId, requestId: target.requestId }, 'asynchronous upload failed');
        await job.onFailure?.(cause).catch((e: unknown) => this.opts.logger.error({ err: e, uploadId }, 'handling a failed asynchronous upload failed'));
      } finally {
        await job.cleanup?.().catch((e: unknown) => this.opts.logger.warn({ err: e, uploadId }, 'cleaning up after an upload failed'));
        slot.release();
      }
    })();
    this.running.set(done, controller);
    void done.finally(() => this.running.delete(done));
    return uploadId;
  }

  /** Refuses new ones, lets those running finish for up to graceMs, then interrupts the rest; resolves once all have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.opts.graceMs)));
    await Promise.race([Promise.allSettled([...this.running.keys()]), grace]);
    clearTimeout(timer);
    for (const controller of this.running.values()) controller.abort(new UploadInterrupted(STOPPED));
    await Promise.allSettled([...this.running.keys()]);
  }
}
