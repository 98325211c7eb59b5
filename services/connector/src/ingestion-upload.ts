import { Readable } from 'node:stream';
import { INGESTION_CONNECTOR_UPLOAD_PATH } from '@trove/contracts';
import { IDENTITY_HEADER, requestInProcess, signIdentity, type Identity, type LocalApp } from '@trove/platform';

/** The part of ingestion's upload result a pull reports. */
export interface UploadOutcome {
  upload_id: string;
  summary: { submitted: number; accepted: number; rejected: number; dedup_skipped: number };
}

export interface UploadTarget {
  collection: string;
  record_type: string;
  source_name: string;
  name_column?: string;
}

/** Ingestion did not take the rows: unreachable, or it answered with an error. */
export class IngestionFailure extends Error {
  override name = 'IngestionFailure';
}

export interface IngestionUploaderOptions {
  /** Ingestion's base URL, or its app when it runs in this process (the same request over an in-memory connection). */
  target: string | LocalApp;
  internalTokenSecret: string;
  tokenTtlSeconds: number;
  /** The longest a pull's upload may take from its first byte to ingestion's answer. */
  timeoutMs: number;
}

/**
 * Sends one pull's rows to ingestion as one NDJSON request body, streamed as the pages come (ServiceClient sends JSON
 * bodies only), signed like ServiceClient's calls: the identity acts for the tenant, with `caller: 'connector'`.
 * The body is pulled from `pages` as the connection takes it, so a slow ingestion slows the read from the source.
 */
export class IngestionUploader {
  constructor(private readonly opts: IngestionUploaderOptions) {}

  async upload(identity: Identity, target: UploadTarget, pages: AsyncIterator<Buffer>, requestId?: string): Promise<UploadOutcome> {
    const token = signIdentity({ ...identity, caller: 'connector' }, this.opts.internalTokenSecret, this.opts.tokenTtlSeconds);
    const query = new URLSearchParams({ collection: target.collection, record_type: target.record_type, source_name: target.source_name });
    if (target.name_column) query.set('name_column', target.name_column);
    const url = `${INGESTION_CONNECTOR_UPLOAD_PATH}?${query}`;
    const headers = {
      [IDENTITY_HEADER]: token,
      'content-type': 'application/x-ndjson',
      ...(requestId ? { 'x-request-id': requestId } : {}),
    };
    let res: { status: number; text: string };
    try {
      res = await this.send(url, headers, pages);
    } catch (err) {
      await pages.return?.();
      throw new IngestionFailure(`the ingestion service could not be reached (${(err as Error).name})`);
    }
    const { text } = res;
    if (res.status !== 201) {
      let detail = text.slice(0, 300);
      try {
        const parsed = JSON.parse(text) as { detail?: unknown };
        if (typeof parsed.detail === 'string') detail = parsed.detail;
      } catch {
        // The answer was not JSON; its start is shown as it is.
      }
      throw new IngestionFailure(`the ingestion service answered ${res.status}: ${detail}`);
    }
    return JSON.parse(text) as UploadOutcome;
  }

  private async send(path: string, headers: Record<string, string>, pages: AsyncIterator<Buffer>): Promise<{ status: number; text: string }> {
    const { target } = this.opts;
    const signal = AbortSignal.timeout(this.opts.timeoutMs);
    if (typeof target !== 'string') {
      const app = target();
      if (!app) throw new Error('ingestion is not running in this process');
      const body = Readable.from({ [Symbol.asyncIterator]: () => pages });
      return requestInProcess(app, { method: 'POST', path, headers: { ...headers, 'transfer-encoding': 'chunked' }, body, signal });
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await pages.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await pages.return?.();
      },
    });
    const res = await fetch(`${target}${path}`, { method: 'POST', headers, body, duplex: 'half', signal } as RequestInit);
    return { status: res.status, text: await res.text() };
  }
}
