/** The client address as a counter key: an IPv4 address mapped into IPv6 counts as the IPv4 address. */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * express "trust proxy" from TRUSTED_PROXIES: `loopback`, addresses, CIDR ranges and the names proxy-addr knows,
 * comma-separated; empty or `none` believes no X-Forwarded-For at all. A service that limits per client address
 * (Open, portal login) believes the X-Forwarded-For the gateway appends only when the gateway is among these.
 */
export function trustProxySetting(value: string): false | string[] {
  const list = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (list.length === 0 || (list.length === 1 && list[0]!.toLowerCase() === 'none')) return false;
  return list;
}
