import CircuitBreaker from 'opossum';
import { ERRORS, HttpError } from './errors';
import { IDENTITY_HEADER, signIdentity, type Identity } from './identity';

export interface ServiceClientOptions {
  /** Name of the upstream service, used in the 503 detail and metrics. */
  service: string;
  baseUrl: string;
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

/** Network failures and 5xx answers count against the breaker; 4xx answers are the caller's business. */
class UpstreamFailure extends Error {}

/**
 * JSON calls to another Trove service with the internal identity token, behind an opossum circuit breaker.
 * When the upstream is down or the breaker is open the call fails with a 503 naming the service.
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
    });
  }

  get isOpen(): boolean {
    return this.breaker.opened;
  }

  private async send(call: Call): Promise<ServiceResponse<unknown>> {
    const token = signIdentity(call.identity, this.opts.internalTokenSecret, this.opts.tokenTtlSeconds ?? 60);
    let res: Response;
    try {
      res = await fetch(`${this.opts.baseUrl}${call.path}`, {
        method: call.method,
        headers: {
          [IDENTITY_HEADER]: token,
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(call.requestId ? { 'x-request-id': call.requestId } : {}),
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new UpstreamFailure((e as Error).message);
    }
    const text = await res.text();
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { detail: text };
      }
    }
    if (res.status >= 500) throw new UpstreamFailure(`${this.opts.service} answered ${res.status}`);
    return { status: res.status, body };
  }

  async request<T>(call: Call): Promise<ServiceResponse<T>> {
    try {
      return (await this.breaker.fire(call)) as ServiceResponse<T>;
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw ERRORS.unavailable(`The ${this.opts.service} service is unavailable; try again shortly`);
    }
  }

  shutdown(): void {
    this.breaker.shutdown();
  }
}
