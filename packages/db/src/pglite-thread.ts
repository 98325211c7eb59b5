import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** What PGlite answers a statement with, as much of it as the pool reads. */
export interface EmbeddedResult {
  rows: any[];
  affectedRows?: number;
}

/** A PostgreSQL error from the embedded database, with the fields PostgreSQL gives it (code, detail, constraint, …). */
export class EmbeddedDatabaseError extends Error {
  code?: string;

  constructor(fields: Record<string, unknown>) {
    super(String(fields.message));
    Object.assign(this, fields, { name: fields.name ?? 'error' });
  }
}

interface Pending {
  resolve: (value: any) => void;
  reject: (err: Error) => void;
}

// From src/ (tests run the sources) and from dist/ alike, the worker is one folder up.
const WORKER = join(__dirname, '..', 'worker', 'pglite.cjs');

/**
 * PGlite in a thread of its own (worker/pglite.cjs). PGlite runs PostgreSQL compiled to WebAssembly in the thread that
 * calls it, without yielding until a statement ends; in the main thread a search would hold every service of the
 * process for as long as it runs. Here the main thread sends each statement and goes on serving while the engine works
 * on the other core. Statements run in the order they are sent. The thread keeps the process alive only while a
 * statement is outstanding, as a socket to a server would.
 */
export class PGliteThread {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private nextId = 1;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    worker.on('message', (message) => this.receive(message));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the embedded database's thread ended (exit code ${code})`)));
  }

  /** Starts the thread and opens the database in `dataDir` (in memory when undefined). */
  static async start(dataDir: string | undefined): Promise<PGliteThread> {
    const worker = new Worker(WORKER, { workerData: { dataDir } });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: { ready?: boolean; failed?: Record<string, unknown> }) => {
        if (!message.ready && !message.failed) return;
        worker.off('message', onMessage).off('error', reject);
        if (message.failed) {
          void worker.terminate();
          reject(new EmbeddedDatabaseError(message.failed));
        } else resolve();
      };
      worker.on('message', onMessage).once('error', reject);
    });
    return new PGliteThread(worker);
  }

  query(sql: string, params: readonly unknown[]): Promise<EmbeddedResult> {
    return this.call('query', { sql, params });
  }

  /** Several statements in one text (the simple protocol); the last one's result. */
  exec(sql: string): Promise<EmbeddedResult> {
    return this.call('exec', { sql });
  }

  /** `COPY … FROM '/dev/blob'` with `data` as the blob. */
  copy(sql: string, data: string): Promise<EmbeddedResult> {
    return this.call('copy', { sql, data });
  }

  /** LISTEN on a channel; returns the UNLISTEN. */
  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    const subscription = this.nextId++;
    this.listeners.set(subscription, onNotify);
    await this.call('listen', { channel, subscription });
    return async () => {
      this.listeners.delete(subscription);
      await this.call('unlisten', { subscription });
    };
  }

  /** Closes the database and ends the thread; every statement sent after it is refused, as PGlite refuses them. */
  close(): Promise<void> {
    // A thread that failed already has nothing to close; it is ended all the same.
    this.closing ??= this.call('close', {})
      .catch(() => undefined)
      .finally(() => this.fail(new Error('PGlite is closed')))
      .then(() => this.worker.terminate().then(() => undefined));
    return this.closing;
  }

  private call(op: string, message: object): Promise<any> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id, op });
    });
  }

  private receive(message: { id?: number; result?: unknown; error?: Record<string, unknown>; notify?: number; payload?: string }): void {
    if (message.notify !== undefined) {
      this.listeners.get(message.notify)?.(message.payload!);
      return;
    }
    const pending = this.pending.get(message.id!);
    if (!pending) return;
    this.pending.delete(message.id!);
    if (this.pending.size === 0) this.worker.unref();
    if (message.error) pending.reject(new EmbeddedDatabaseError(message.error));
    else pending.resolve(message.result);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }
}
