import { endpointPath, type Endpoint, type EndpointAnswer, type EndpointInput } from '@trove/contracts';
import CircuitBreaker from 'opossum';
import { ERRORS, HttpError, passedOn } from './errors';
import type { ServiceName } from './config';
import { IDENTITY_HEADER, signIdentity, type Identity } from './identity';
import { requestInProcess, type LocalApp } from './in-process';

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
  }

  get isOpen(): boolean {
    return this.breaker.opened;
  }

  private async send(call: Call): Promise<ServiceResponse<unknown>> {
    const identity: Identity = { ...call.identity, caller: this.opts.caller };
    const token = signIdentity(identity, this.opts.internalTokenSecret, this.opts.tokenTtlSeconds ?? 60);
    const headers: Record<string, string> = {
      [IDENTITY_HEADER]: token,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(call.requestId ? { 'x-request-id': call.requestId } : {}),
    };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let res: { status: number; text: string };
    try {
      res = await this.exchange(call.method, call.path, headers, body);
    } catch (e) {
      throw new UpstreamFailure((e as Error).message);
    }
    let parsed: unknown = undefined;
    if (res.text) {
      try {
        parsed = JSON.parse(res.text);
      } catch {
        parsed = { detail: res.text };
      }
    }
    if (res.status >= 500) throw new UpstreamFailure(`${this.opts.service} answered ${res.status}`, res.status);
    return { status: res.status, body: parsed };
  }

  private async exchange(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string }> {
    const { target, service } = this.opts;
    const signal = AbortSignal.timeout(this.opts.timeoutMs ?? 10_000);
    if (typeof target !== 'string') {
      const app = target();
      if (!app) throw new Error(`${service} is not running in this process`);
      return requestInProcess(app, { method, path, headers, body, signal });
    }
    const res = await fetch(`${target}${path}`, { method, headers, body, signal });
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
   */
  async call<E extends Endpoint>(
    e: E,
    input: EndpointInput<E> & { identity: Identity; requestId?: string },
  ): Promise<EndpointAnswer<E>> {
    const parts = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(parts.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const search = query.toString();
    const path = endpointPath(e, parts.params) + (search ? `?${search}` : '');
    const res = await this.request<unknown>({ method: e.method, path, identity: input.identity, body: parts.body, requestId: input.requestId });
    if (res.status === (e.status ?? 200)) {
      const parsed = e.answer.safeParse(res.body);
      if (parsed.success) return parsed.data as EndpointAnswer<E>;
      throw ERRORS.unavailable(`The ${this.opts.service} service answered ${e.method} ${e.path} with a body it does not declare; try again shortly`);
    }
    if (e.refusals?.includes(res.status)) throw passedOn(res.status, res.body);
    throw ERRORS.unavailable(`The ${this.opts.service} service is unavailable; try again shortly`);
  }

  shutdown(): void {
    this.breaker.shutdown();
  }
}
