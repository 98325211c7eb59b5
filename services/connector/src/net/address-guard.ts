import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { lookup, resolveSrv, resolveTxt } from 'node:dns/promises';
import type { SrvRecord } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A connector's host that the SSRF rule refuses; its message names the host and why, never a credential. */
export class RefusedHostError extends Error {
  override name = 'RefusedHostError';
}

/**
 * Why an address may not be connected to in cloud mode, or undefined when it may: only global unicast addresses
 * pass. Loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, which holds the cloud metadata
 * service 169.254.169.254), unique-local IPv6 (fc00::/7, which holds fd00:ec2::254), carrier-grade NAT, multicast,
 * reserved and unspecified ranges are refused, and so are IPv6 forms that embed an IPv4 address (mapped, NAT64,
 * 6to4, Teredo) unless the embedded address itself passes.
 */
export function refusedReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  return range === 'unicast' ? undefined : `is a ${range} address`;
}

/** A literal address (with or without IPv6 brackets) is checked as it is; undefined when `host` is a name. */
export function literalAddress(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) ? bare : undefined;
}

function refuse(host: string, address: string, reason: string): RefusedHostError {
  const via = address === host ? '' : ` (it resolves to ${address})`;
  return new RefusedHostError(
    `connector host ${host}${via} ${reason}: private, loopback, link-local and metadata addresses are not reachable from Trove cloud`,
  );
}

/** Refuses a literal address that may not be reached; names are checked when they are resolved (resolveHost). */
export function checkLiteralHost(host: string): void {
  const address = literalAddress(host);
  if (address === undefined) return;
  const reason = refusedReason(address);
  if (reason) throw refuse(host, address, reason);
}

/**
 * The DNS queries the connector makes itself before it connects: the addresses of a name (A/AAAA, as getaddrinfo
 * answers them) and the SRV and TXT records of a mongodb+srv:// URI. DNS is a third party: tests may pass another.
 */
export interface DnsResolver {
  lookup(host: string): Promise<LookupAddress[]>;
  resolveSrv(name: string): Promise<SrvRecord[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

/** Node's: getaddrinfo for addresses (as the drivers resolve names), the configured DNS servers for SRV and TXT. */
export const systemDns: DnsResolver = {
  lookup: (host) => lookup(host, { all: true, verbatim: true }),
  resolveSrv,
  resolveTxt,
};

/**
 * The address to connect to for `host`, checked: every address the name resolves to must pass (so a name with one
 * good and one private record is refused whichever the driver would pick), and the caller connects to the checked
 * address, not the name, so a second resolution cannot answer differently (DNS rebinding).
 */
export async function resolveHost(host: string, dns: DnsResolver = systemDns): Promise<string> {
  const literal = literalAddress(host);
  if (literal !== undefined) {
    checkLiteralHost(host);
    return literal;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await dns.lookup(host);
  } catch {
    throw new RefusedHostError(`connector host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new RefusedHostError(`connector host ${host} could not be resolved`);
  for (const a of addresses) {
    const reason = refusedReason(a.address);
    if (reason) throw refuse(host, a.address, reason);
  }
  return addresses[0]!.address;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect (drivers that connect by name themselves): resolves as dns.lookup does and refuses the
 * connection when any address is refused. Node skips `lookup` for a literal address, so those are checked before.
 */
export function guardedLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const a of addresses) {
      const reason = refusedReason(a.address);
      if (reason) return callback(refuse(hostname, a.address, reason) as NodeJS.ErrnoException, []);
    }
    if ((options as LookupAllOptions).all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
