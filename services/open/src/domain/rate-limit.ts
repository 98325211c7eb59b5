/** What one counted request leaves of its client's allowance in the current window. */
export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Whole seconds until the window resets (at least 1), for the 429 detail and Retry-After. */
  retryAfterSeconds: number;
}

/**
 * The specification's answer to the count of a fixed one-minute window: `X-RateLimit-Limit`, `-Remaining` (never
 * below 0) and `-Reset` (the window's end in epoch seconds, rounded up so a client waiting until then is allowed).
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

/** The client address as a counter key: an IPv4 address mapped into IPv6 counts as the IPv4 address. */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * express "trust proxy" from TRUSTED_PROXIES: `loopback`, addresses, CIDR ranges and the names proxy-addr knows,
 * comma-separated; empty or `none` believes no X-Forwarded-For at all.
 */
export function trustProxySetting(value: string): false | string[] {
  const list = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (list.length === 0 || (list.length === 1 && list[0]!.toLowerCase() === 'none')) return false;
  return list;
}
