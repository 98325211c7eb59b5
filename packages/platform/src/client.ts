import { endpointPath, type Endpoint, type EndpointAnswer, type EndpointInput } from '@trove/contracts';
import { Readable } from 'node:stream';
import CircuitBreaker from 'opossum';
import type { Registry } from 'prom-client';
import { ERRORS, HttpError, passedOn } from './errors';
import type { ServiceName } from './config';
import { IDENTITY_HEADER, signIdentity, type Identity } from './identity';
import { requestInProcess, type LocalApp } from './in-process';
import { observeBreaker } from './metrics';

export interface ServiceClientOptions {
  /** Name of the upstream service, used in the 503 detail and metrics. */
  service: string;
  /**
   * The service making the calls. It is signed into every call's identity (Identity.caller), which is what lets
   * the upstream's /internal routes answer: a request forwarded by the gateway never carries one.
   */
  caller: ServiceName;
  /**
   * Where the service answers: its base URL over HTTP, or, when it runs in this process, its app, reached over an
   * in-memory connection with the same identity token, checked by the same middleware.
   */
  target: string | LocalApp;
  internalTokenSecret: string;
  /** Lifetime of the identity token signed for each call (INTERNAL_TOKEN_TTL_SECONDS). */
  tokenTtlSeconds?: number;
  timeoutMs?: number;
  /** Failure percentage over the rolling window that opens the breaker. */
  errorThresholdPercentage?: number;
  resetTimeoutMs?: number;
  /** The calling service's registry, where the breaker's state and openings are reported (observeBreaker). */
  registry?: Registry;
}

export interface ServiceResponse<T> {
  status: number;
  body: T;
}

interface Call {
  method: string;
  path: string;
  identity: Identity;
  body?: unknown;
  requestId?: string;
}

/** A call that got no usable answer: a network failure, a timeout, or a 5xx. */
class UpstreamFailure extends Error {
  constructor(
    message: string,
    /** The upstream's status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * Whether an upstream's answer says it cannot serve anything right now (502, 503, 504), which counts against a circuit
 * breaker (the gateway's and ServiceClient's alike) besides network failures and timeouts. A 4xx is the caller's, and a
 * 500 (or any other 5xx) is the upstream's answer to the request's own content: neither says the upstream is down,
 * and counting them let one tenant's bad requests shut a service off for everyone.
 */
export function isUnavailableStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** Whether a failed call says nothing about the upstream's health, so it must not count against the breaker. */
function answeredByUpstream(err: unknown): boolean {
  const status = err instanceof UpstreamFailure ? err.status : undefined;
  return status !== undefined && !isUnavailableStatus(status);
}

/**
 * JSON calls to another Trove service with the internal identity token, behind an opossum circuit breaker, over HTTP
 * or, to a service of this process, in process. When the upstream is down (or not started in this process) or the
 * breaker is open the call fails with a 503 naming the service.
 */
export class ServiceClient {
  private readonly breaker: CircuitBreaker<[Call], ServiceResponse<unknown>>;

  constructor(private readonly opts: ServiceClientOptions) {
    this.breaker = new CircuitBreaker((call: Call) => this.send(call), {
      timeout: opts.timeoutMs ?? 10_000,
      errorThresholdPercentage: opts.errorThresholdPercentage ?? 50,
      resetTimeout: opts.resetTimeoutMs ?? 5_000,
      volumeThreshold: 5,
      name: opts.service,
      errorFilter: answeredByUpstream,
    });
    if (opts.registry) observeBreaker(opts.registry, this.breaker, opts.service);
  }

  get isOpen(): boolean {
    return this.breaker.opened;
  }

  private async send(call: Call): Promise<ServiceResponse<unknown>> {
    const headers = this.headersOf(call.identity, call.requestId, call.body === undefined ? undefined : 'application/json');
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let res: { status: number; text: string };
    try {
      res = await this.exchange(call.method, call.path, headers, body);
    } catch (e) {
      throw new UpstreamFailure((e as Error).message);
    }
    if (res.status >= 500) throw new UpstreamFailure(`${this.opts.service} answered ${res.status}`, res.status);
    return { status: res.status, body: bodyOf(res.text) };
  }

  /** A call's headers: the identity token signed with this service as the caller, the request id, the body's type. */
  private headersOf(identity: Identity, requestId: string | undefined, contentType: string | undefined): Record<string, string> {
    const token = signIdentity({ ...identity, caller: this.opts.caller }, this.opts.internalTokenSecret, this.opts.tokenTtlSeconds ?? 60);
    return {
      [IDENTITY_HEADER]: token,
      ...(contentType ? { 'content-type': contentType } : {}),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    };
  }

  /** One request and its whole answer as text; a streamed body is pulled as the connection takes it. */
  private async exchange(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | AsyncIterator<Uint8Array> | undefined,
    timeoutMs = this.opts.timeoutMs ?? 10_000,
  ): Promise<{ status: number; text: string }> {
    const { target, service } = this.opts;
    const signal = AbortSignal.timeout(timeoutMs);
    const streamed = body !== undefined && typeof body !== 'string';
    if (typeof target !== 'string') {
      const app = target();
      if (!app) throw new Error(`${service} is not running in this process`);
      if (!streamed) return requestInProcess(app, { method, path, headers, body, signal });
      const stream = Readable.from({ [Symbol.asyncIterator]: () => body });
      return requestInProcess(app, { method, path, headers: { ...headers, 'transfer-encoding': 'chunked' }, body: stream, signal });
    }
    const sent = streamed ? pulled(body) : body;
    const res = await fetch(`${target}${path}`, { method, headers, body: sent, signal, ...(streamed && { duplex: 'half' }) } as RequestInit);
    return { status: res.status, text: await res.text() };
  }

  async request<T>(call: Call): Promise<ServiceResponse<T>> {
    try {
      return (await this.breaker.fire(call)) as ServiceResponse<T>;
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw ERRORS.unavailable(`The ${this.opts.service} service is unavailable; try again shortly`);
    }
  }

  /**
   * Calls a declared endpoint (`@trove/contracts` endpoint()) on behalf of `identity` and answers its parsed success
   * body. A refusal the declaration lists is thrown as the same refusal (its status and detail), for the caller's own
   * client to see; any other answer, or a body the declaration does not describe, is the upstream failing: 503.
   * `passOn` adds refusals this caller passes on besides the declared ones (MCP shows a search's 422 to the model).
   */
  async call<E extends Endpoint>(
    e: E,
    input: EndpointInput<E> & { identity: Identity; requestId?: string; passOn?: readonly number[] },
  ): Promise<EndpointAnswer<E>> {
    const parts = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const res = await this.request<unknown>({ method: e.method, path: pathOf(e, parts), identity: input.identity, body: parts.body, requestId: input.requestId });
    return this.answerOf(e, res, input.passOn);
  }

  /**
   * Calls a declared endpoint whose request body is a stream in the media type it `consumes` (NDJSON rows), sent as
   * it is pulled from `body`, so a slow upstream slows the read at the source. The whole exchange may take `timeoutMs`.
   * It is not counted by the breaker: one long upload says nothing of the upstream's health. The answer is read as
   * call() reads it; an upstream that cannot be reached is a 503.
   */
  async stream<E extends Endpoint>(
    e: E,
    input: Omit<EndpointInput<E>, 'body'> & { identity: Identity; requestId?: string; body: AsyncIterator<Uint8Array>; timeoutMs: number },
  ): Promise<EndpointAnswer<E>> {
    const parts = input as { params?: Record<string, unknown>; query?: Record<string, unknown> };
    const headers = this.headersOf(input.identity, input.requestId, e.consumes?.[0] ?? 'application/octet-stream');
    let res: { status: number; text: string };
    try {
      res = await this.exchange(e.method, pathOf(e, parts), headers, input.body, input.timeoutMs);
    } catch {
      await input.body.return?.();
      throw ERRORS.unavailable(`The ${this.opts.service} service could not be reached; try again shortly`);
    }
    return this.answerOf(e, { status: res.status, body: bodyOf(res.text) });
  }

  /** The parsed success answer; a refusal the declaration lists passed on as it is; anything else a 503. */
  private answerOf<E extends Endpoint>(e: E, res: ServiceResponse<unknown>, passOn: readonly number[] = []): EndpointAnswer<E> {
    if (res.status === (e.status ?? 200)) {
      const parsed = e.answer.safeParse(res.body);
      if (parsed.success) return parsed.data as EndpointAnswer<E>;
      throw ERRORS.unavailable(`The ${this.opts.service} service answered ${e.method} ${e.path} with a body it does not declare; try again shortly`);
    }
    if (e.refusals?.includes(res.status) || passOn.includes(res.status)) throw passedOn(res.status, res.body);
    throw ERRORS.unavailable(`The ${this.opts.service} service is unavailable; try again shortly`);
  }

  shutdown(): void {
    this.breaker.shutdown();
  }
}

/** The path with its parameters filled in and its query string. */
function pathOf(e: Endpoint, parts: { params?: Record<string, unknown>; query?: Record<string, unknown> }): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(parts.query ?? {})) if (v !== undefined) query.set(k, String(v));
  const search = query.toString();
  return endpointPath(e, parts.params) + (search ? `?${search}` : '');
}

/** An answer's body: its JSON, a text that is not JSON as its detail, nothing for an empty one. */
function bodyOf(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text };
  }
}

/** The iterator as a web stream, pulled as fetch sends it; cancelling it ends the iterator. */
function pulled(body: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await body.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await body.return?.();
    },
  });
}
