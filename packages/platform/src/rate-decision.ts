/** What one counted request leaves of its client's allowance in the current window. */
export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Whole seconds until the window resets (at least 1), for the 429 detail and Retry-After. */
  retryAfterSeconds: number;
}

/**
 * The answer to the count of a fixed window (Open's per address, the gateway's per tenant; docs/behaviour/open-api.md
 * and plans-and-limits.md, "Rate limits"):
 * `X-RateLimit-Limit`, `-Remaining` (never below 0) and `-Reset` (the window's end in epoch seconds, rounded up so a
 * client waiting until then is allowed).
 */
export function decide(limit: number, count: number, resetAtMs: number, nowMs: number): RateDecision {
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
  return {
    allowed: count <= limit,
    retryAfterSeconds,
    headers: {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
      'X-RateLimit-Reset': String(Math.ceil(resetAtMs / 1000)),
    },
  };
}
