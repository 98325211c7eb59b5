import createClient, { type Client } from 'openapi-fetch';
import { TroveError, TroveNetworkError, TroveTimeoutError } from './errors.js';
import { isIdempotent, isRetryableStatus, retryDelay, retryPolicy, sleep, type RetryOptions, type RetryPolicy } from './retry.js';
import type { paths } from './schema.js';
import type { ParseAs } from './types.js';
import { xhrFetch, type ProgressListener } from './xhr.js';

/** A request body made afresh for each attempt: a replayable one can be sent again after a refusal. */
export interface BodySource {
  /** The body and the headers that describe it (Content-Type, Content-Length). */
  make(): { body: string | Blob | FormData | ReadableStream<Uint8Array>; headers: Record<string, string> };
  /** Whether make() can be called again for a retry (a one-shot stream cannot). */
  replayable: boolean;
  /** Sent through XMLHttpRequest to observe its upload progress (browsers). */
  xhrProgress?: ProgressListener;
}

export interface CoreRequest {
  method: string;
  /** The path template (`/api/v1/records/{id}`). */
  path: string;
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  /** A JSON value, or a body source for anything else. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: RetryOptions | false;
  parseAs?: ParseAs;
}

export interface CoreAnswer {
  data: unknown;
  response: Response;
}

export interface CoreOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  apiKey?: string;
  portalToken?: string;
  retry?: RetryOptions | false;
  timeoutMs?: number;
}

/** Why an attempt's signal aborted when the timeout did it. */
class AttemptTimeout {}

/**
 * Sends requests: builds each through openapi-fetch (path and query serialised as the document says), adds the
 * credential the path takes, bounds the wait for an answer, tries again as the retry policy allows, and reads the
 * answer, throwing TroveError for any answer outside 2xx.
 */
export class Core {
  private readonly raw: Client<paths>;
  private readonly fetchImpl: typeof fetch;
  readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  apiKey: string | undefined;
  portalToken: string | undefined;

  constructor(opts: CoreOptions) {
    // Looked up on each call rather than bound now, so a fetch replaced later (a test's, a polyfill) is the one used.
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.raw = createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, '') });
    this.retry = retryPolicy(opts.retry);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.headers = { ...(opts.headers ?? {}) };
    this.apiKey = opts.apiKey;
    this.portalToken = opts.portalToken;
  }

  /** The credential a path takes: none for sign-in and the Open API, the portal token under /portal, else the key. */
  credentialFor(path: string): string | undefined {
    if (path.startsWith('/open/') || path.startsWith('/api/v1/portal/auth/')) return undefined;
    if (path.startsWith('/api/v1/portal/')) return this.portalToken;
    return this.apiKey;
  }

  async send(req: CoreRequest): Promise<CoreAnswer> {
    const method = req.method.toUpperCase();
    const policy = req.retry === undefined ? this.retry : retryPolicy(req.retry, this.retry);
    const source = bodySource(req.body);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      let outcome: { answer: CoreAnswer } | { error: TroveError | TroveNetworkError };
      try {
        outcome = { answer: await this.attempt(method, req, source, timeoutMs) };
      } catch (err) {
        if (!(err instanceof TroveError) && !(err instanceof TroveNetworkError)) throw err;
        outcome = { error: err };
      }
      if ('answer' in outcome) return outcome.answer;
      const error = outcome.error;
      const canReplay = source === undefined || source.replayable;
      const retryable =
        error instanceof TroveError ? isRetryableStatus(error.status, method, error.retryAfter) : isIdempotent(method) && !(error instanceof TroveTimeoutError);
      if (attempt >= policy.attempts || !canReplay || !retryable) throw error;
      const delay = retryDelay(policy, attempt, error instanceof TroveError ? error.retryAfter : undefined);
      if (delay === undefined) throw error;
      await sleep(delay, req.signal);
    }
  }

  private async attempt(method: string, req: CoreRequest, source: BodySource | undefined, timeoutMs: number): Promise<CoreAnswer> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(req.signal!.reason);
    if (req.signal?.aborted) throw req.signal.reason;
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = timeoutMs > 0 ? setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs) : undefined;
    const made = source?.make();
    const credential = this.credentialFor(req.path);
    const headers: Record<string, string> = {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...this.headers,
      ...(made?.headers ?? {}),
      ...(req.headers ?? {}),
    };
    let url = req.path;
    const baseFetch = source?.xhrProgress ? xhrFetch(source.xhrProgress) : this.fetchImpl;
    const transport = async (request: Request): Promise<Response> => {
      url = pathOf(request.url);
      try {
        return await baseFetch(request);
      } finally {
        // The timeout bounds the wait for the answer's headers; its body is read as it comes.
        clearTimeout(timer);
      }
    };
    try {
      const { response, error } = await this.raw.request(method.toLowerCase() as 'get', req.path as never, {
        params: req.params,
        body: made?.body,
        bodySerializer: (b: unknown) => b,
        headers,
        signal: controller.signal,
        parseAs: 'stream',
        fetch: transport,
        // A ReadableStream body needs it in fetch (Node's included); other bodies ignore it.
        duplex: 'half',
      } as never);
      if (!response.ok) throw new TroveError({ status: response.status, body: error, headers: response.headers, request: { method, path: url } });
      return { data: await readAnswer(response, req.parseAs), response };
    } catch (err) {
      // A refusal, or an answer whose JSON does not parse: an answer came, so neither is a network failure.
      if (err instanceof TroveError || err instanceof SyntaxError) throw err;
      if (controller.signal.reason instanceof AttemptTimeout) throw new TroveTimeoutError({ method, path: url }, timeoutMs);
      if (req.signal?.aborted) throw req.signal.reason;
      throw new TroveNetworkError({ method, path: url }, err);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A JSON value as a replayable body; a body source as it is. */
function bodySource(body: unknown): BodySource | undefined {
  if (body === undefined) return undefined;
  if (isBodySource(body)) return body;
  const text = JSON.stringify(body);
  return { replayable: true, make: () => ({ body: text, headers: { 'content-type': 'application/json' } }) };
}

function isBodySource(value: unknown): value is BodySource {
  return typeof value === 'object' && value !== null && typeof (value as BodySource).make === 'function' && 'replayable' in value;
}

/** The answer's body: as `parseAs` says, else JSON when its Content-Type is JSON, text otherwise. */
async function readAnswer(response: Response, parseAs: ParseAs | undefined): Promise<unknown> {
  if (response.status === 204 || response.status === 205) {
    await response.body?.cancel();
    return undefined;
  }
  switch (parseAs) {
    case 'stream':
      return response.body;
    case 'blob':
      return response.blob();
    case 'arrayBuffer':
      return response.arrayBuffer();
    case 'text':
      return response.text();
    case 'json':
      return parseJson(await response.text());
    default: {
      const type = response.headers.get('content-type') ?? '';
      const text = await response.text();
      return /[/+]json\b/i.test(type) ? parseJson(text) : text;
    }
  }
}

function parseJson(text: string): unknown {
  return text === '' ? undefined : JSON.parse(text);
}

/** The path and query of a URL, for error messages. */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}
