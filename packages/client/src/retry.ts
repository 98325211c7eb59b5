/**
 * When and how long a request is tried again. Trove answers 429 (a rate limit, a tenant's full queue, a full stream
 * buffer) and 503 with Retry-After (no slot came free) before it does any of the request's work, so those are tried
 * again whatever the method. A 503 without Retry-After (a service unreachable, or an upstream that timed out, perhaps
 * after acting) and a connection that failed are tried again only for idempotent methods (GET, HEAD, PUT, DELETE).
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4); 1 never tries again. */
  attempts?: number;
  /**
   * The longest wait before one attempt (default 30,000 ms). A Retry-After asking for longer is not waited for: the
   * refusal is thrown at once, its `retryAfter` saying how long the server asked for.
   */
  maxDelayMs?: number;
  /** The first backoff when the answer names no wait (default 250 ms); it doubles each attempt, with full jitter. */
  baseDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, maxDelayMs: 30_000, baseDelayMs: 250 };

/** The policy from options: `false` never retries. */
export function retryPolicy(options: RetryOptions | false | undefined, base: RetryPolicy = DEFAULT_RETRY): RetryPolicy {
  if (options === false) return { ...base, attempts: 1 };
  const policy = { ...base, ...definedOnly(options ?? {}) };
  return { ...policy, attempts: Math.max(1, Math.floor(policy.attempts)) };
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** Whether an answer of this status is worth asking again (see RetryOptions for why). */
export function isRetryableStatus(status: number, method: string, retryAfter: number | undefined): boolean {
  if (status === 429) return true;
  if (status === 503) return retryAfter !== undefined || isIdempotent(method);
  return false;
}

/**
 * Milliseconds to wait before attempt `attempt + 1`: the server's Retry-After when it sent one, else an exponential
 * backoff with full jitter (a random wait up to `baseDelayMs * 2^(attempt-1)`, at most maxDelayMs), so clients refused
 * together do not come back together. Undefined when the server asked for longer than maxDelayMs.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | undefined, random = Math.random): number | undefined {
  if (retryAfterSeconds !== undefined) {
    const ms = Math.ceil(retryAfterSeconds * 1000);
    return ms <= policy.maxDelayMs ? ms : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
