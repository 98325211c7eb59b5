import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { BSON, MongoClient, type MongoClientOptions } from 'mongodb';
import { withinMs } from '@trove/platform';
import { bindMongoFilter } from '../domain/last-pull';
import { guardedLookup, literalAddress, RefusedHostError, resolveHost, systemDns, type DnsResolver } from '../net/address-guard';
import type { Pages, PullOptions, Row } from './types';

interface MongoConfig {
  uri: string;
  database: string;
  collection: string;
}

/** A MongoDB URI: the scheme and credentials, the host list, and the rest (database and options). */
const URI = /^(mongodb(\+srv)?:\/\/(?:[^@/]*@)?)([^/?]*)(.*)$/i;

/** The hosts a MongoDB URI names (one, a seed list, or the SRV name), without their ports. */
export function mongoHosts(uri: string): { srv: boolean; hosts: string[] } {
  const m = URI.exec(uri);
  if (!m) return { srv: false, hosts: [] };
  return { srv: Boolean(m[2]), hosts: hostEntries(m[3]!).map((h) => hostOf(decodeURIComponent(h))) };
}

/** The host list's entries as written ("host", "host:port", "[v6]:port"). */
function hostEntries(list: string): string[] {
  return list.split(',').filter(Boolean);
}

/** The host of an entry of a URI or of a server's hello, without its port. */
function hostOf(entry: string): string {
  if (isIP(entry)) return entry;
  return entry.startsWith('[') ? entry.slice(0, entry.indexOf(']') + 1) : entry.replace(/:\d*$/, '');
}

/** The options of a URI's rest (database and options). */
function uriParams(rest: string): URLSearchParams {
  return new URLSearchParams(rest.split('?')[1] ?? '');
}

/** An option's value; option names are case-insensitive. */
function optionOf(params: URLSearchParams, name: string): string | undefined {
  return [...params].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

/** A DNS name as SRV verification compares it: lower-case A-labels, no trailing dot; undefined when not a name. */
function dnsName(name: string): string | undefined {
  const ascii = domainToASCII(name.replace(/\.$/, '')).toLowerCase();
  return ascii === '' || literalAddress(ascii) !== undefined ? undefined : ascii;
}

/** The only options a mongodb+srv:// URI's TXT record may set. */
const TXT_OPTIONS = ['authSource', 'replicaSet', 'loadBalanced'];

/**
 * The mongodb:// URI that a mongodb+srv:// URI stands for, by the Initial DNS Seedlist Discovery specification: its
 * hosts are the targets of the SRV records of `_{srvServiceName}._tcp.{host}`, each of which must lie within the
 * host's domain (the host without its first label, or the host itself when it has fewer than three labels: else
 * whoever answers the DNS query could name any host); the host's one TXT record may set authSource, replicaSet and
 * loadBalanced, under the URI's own options; TLS is on unless the URI turns it off; srvMaxHosts picks that many
 * targets at random. The caller checks the targets' addresses before connecting, as for any URI's hosts.
 */
async function seedlistUri(uri: string, dns: DnsResolver, timeoutMs: number): Promise<string> {
  const m = URI.exec(uri);
  const entries = m ? hostEntries(m[3]!) : [];
  const entry = entries.length === 1 ? decodeURIComponent(entries[0]!) : '';
  const host = hostOf(entry) === entry ? dnsName(entry) : undefined;
  if (!m || host === undefined) throw new Error('a mongodb+srv:// URI names one host name, without a port');
  const params = uriParams(m[4]!);
  const srvName = `_${optionOf(params, 'srvServiceName') ?? 'mongodb'}._tcp.${host}`;
  // Within the connect timeout, as the connection itself: a DNS server that never answers must not hold the pull.
  const [records, txt] = await withinMs(
    Promise.all([
    dns.resolveSrv(srvName).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`the SRV records ${srvName} could not be resolved (${err.code ?? err.message})`);
    }),
    dns.resolveTxt(host).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENODATA' || err.code === 'ENOTFOUND') return [];
      throw new Error(`the TXT record of ${host} could not be resolved (${err.code ?? err.message})`);
    }),
    ]),
    timeoutMs,
    `DNS did not answer for ${srvName} within ${timeoutMs} ms`,
  );
  if (records.length === 0) throw new Error(`${srvName} has no SRV records`);
  const labels = host.split('.');
  const domain = labels.length >= 3 ? labels.slice(1).join('.') : host;
  const hosts = records.map((record) => {
    const target = dnsName(record.name);
    if (target === undefined || !target.endsWith(`.${domain}`)) {
      throw new RefusedHostError(`the SRV record ${srvName} names ${record.name}, which is not within ${domain}`);
    }
    return `${target}:${record.port}`;
  });

  if (txt.length > 1) throw new Error(`${host} has more than one TXT record`);
  for (const [key, value] of new URLSearchParams(txt[0]?.join('') ?? '')) {
    const known = TXT_OPTIONS.find((option) => option.toLowerCase() === key.toLowerCase());
    if (!known || value === '') throw new Error(`the TXT record of ${host} sets ${key}: it may set only ${TXT_OPTIONS.join(', ')}, each to a value`);
    if (optionOf(params, known) === undefined) params.append(known, value);
  }
  if (optionOf(params, 'tls') === undefined && optionOf(params, 'ssl') === undefined) params.append('tls', 'true');

  const maxHosts = Number(optionOf(params, 'srvMaxHosts') ?? 0);
  if (!Number.isInteger(maxHosts) || maxHosts < 0) throw new Error('srvMaxHosts must be a non-negative integer');
  if (maxHosts > 0 && (optionOf(params, 'replicaSet') !== undefined || optionOf(params, 'loadBalanced') === 'true')) {
    throw new Error('srvMaxHosts cannot be combined with replicaSet or loadBalanced=true');
  }
  if (maxHosts > 0 && maxHosts < hosts.length) {
    for (let i = hosts.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [hosts[i], hosts[j]] = [hosts[j]!, hosts[i]!];
    }
    hosts.length = maxHosts;
  }
  // The driver refuses SRV-only options in a mongodb:// URI.
  const options = new URLSearchParams([...params].filter(([key]) => !/^srv(ServiceName|MaxHosts)$/i.test(key)));
  return `${m[1]!.replace(/^mongodb\+srv/i, 'mongodb')}${hosts.join(',')}${m[4]!.split('?')[0] || '/'}?${options}`;
}

/** Makes the client; tests of code around it may pass another maker (see test/drivers.test.ts). */
export type MongoClientFactory = (uri: string, options: MongoClientOptions) => Pick<MongoClient, 'connect' | 'db' | 'close'>;
type Client = ReturnType<MongoClientFactory>;

/**
 * MongoDB (the official driver): `query` is a filter in (extended) JSON whose ":last_pull" string values become the
 * date; documents are read with a cursor of batchSize, each server call under maxTimeMS. In cloud mode the driver
 * connects only to addresses that were checked (see primaryClient()).
 */
export async function* mongodbPages(
  config: MongoConfig,
  query: string,
  opts: PullOptions,
  makeClient: MongoClientFactory = (uri, options) => new MongoClient(uri, options),
  dns: DnsResolver = systemDns,
): Pages {
  const options: MongoClientOptions = {
    appName: 'trove-connector',
    serverSelectionTimeoutMS: opts.connectTimeoutMs,
    connectTimeoutMS: opts.connectTimeoutMs,
    socketTimeoutMS: opts.statementTimeoutMs,
    maxPoolSize: 1,
  };
  const filter = bindMongoFilter(BSON.EJSON.parse(query, { relaxed: true }), opts.lastPull) as Record<string, unknown>;
  const client = opts.cloud ? await primaryClient(config.uri, options, makeClient, dns) : await connected(makeClient(config.uri, options));
  try {
    const cursor = client.db(config.database).collection(config.collection).find(filter, { batchSize: opts.batchSize, maxTimeMS: opts.statementTimeoutMs });
    try {
      let page: Row[] = [];
      for await (const doc of cursor) {
        page.push(doc as Row);
        if (page.length >= opts.batchSize) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    } finally {
      await cursor.close().catch(() => undefined);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The client, connected; closed again when connecting fails. */
async function connected(client: Client): Promise<Client> {
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

/**
 * A client connected to a primary (or a standalone server or mongos) through checked addresses only. The driver
 * resolves names through `lookup` (guardedLookup), but connects to a replica-set member that a server announces as a
 * literal address without any check: Node resolves nothing for an IP, and the driver (7.9) has no hook that runs
 * before it opens a socket (its SDAM events report a new member but cannot stop the connection). So no client
 * discovers members: each is a direct connection to one host, checked first. The URI's hosts are tried in order; a
 * secondary's announced primary is checked and tried next (once, so a server cannot send us further). A
 * mongodb+srv:// URI is resolved here (seedlistUri), not by the driver, and its hosts are then checked the same way.
 */
async function primaryClient(uri: string, options: MongoClientOptions, makeClient: MongoClientFactory, dns: DnsResolver): Promise<Client> {
  const m = URI.exec(uri);
  if (!m) throw new RefusedHostError('the MongoDB URI names no host');
  if (m[2]) return primaryClient(await seedlistUri(uri, dns, options.connectTimeoutMS ?? 30_000), options, makeClient, dns);
  const params = uriParams(m[4]!);
  const proxy = optionOf(params, 'proxyHost');
  // resolveHost checks a literal address as it is and every address a name resolves to.
  for (const host of [...mongoHosts(uri).hosts, ...(proxy ? [proxy] : [])]) await resolveHost(host, dns);
  const guarded: MongoClientOptions = { ...options, lookup: guardedLookup as unknown as MongoClientOptions['lookup'] };
  // A load balancer is the only server a load-balanced client talks to: it discovers nothing (and refuses directConnection).
  if (optionOf(params, 'loadBalanced') === 'true') return connected(makeClient(uri, guarded));

  const tried = new Set<string>();
  const attempt = async (entry: string): Promise<{ client?: Client; primary?: string }> => {
    tried.add(entry);
    const client = await connected(makeClient(`${m[1]}${entry}${m[4]}`, { ...guarded, directConnection: true }));
    let primary = false;
    try {
      const hello = await client.db('admin').command({ hello: 1 });
      primary = hello.isWritablePrimary === true || !hello.setName;
      return primary ? { client } : { primary: typeof hello.primary === 'string' ? hello.primary : undefined };
    } finally {
      if (!primary) await client.close().catch(() => undefined);
    }
  };
  for (const entry of hostEntries(m[3]!)) {
    if (tried.has(entry)) continue;
    const { client, primary } = await attempt(entry);
    if (client) return client;
    if (primary === undefined || tried.has(primary)) continue;
    await resolveHost(hostOf(primary), dns);
    const next = await attempt(primary);
    if (next.client) return next.client;
  }
  throw new Error(`no primary among the MongoDB hosts tried (${[...tried].join(', ')})`);
}
