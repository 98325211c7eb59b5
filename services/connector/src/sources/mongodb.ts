import { isIP } from 'node:net';
import { BSON, MongoClient, type MongoClientOptions } from 'mongodb';
import { bindMongoFilter } from '../domain/last-pull';
import { checkLiteralHost, guardedLookup, RefusedHostError, resolveHost } from '../net/address-guard';
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
): Pages {
  const options: MongoClientOptions = {
    appName: 'trove-connector',
    serverSelectionTimeoutMS: opts.connectTimeoutMs,
    connectTimeoutMS: opts.connectTimeoutMs,
    socketTimeoutMS: opts.statementTimeoutMs,
    maxPoolSize: 1,
  };
  const filter = bindMongoFilter(BSON.EJSON.parse(query, { relaxed: true }), opts.lastPull) as Record<string, unknown>;
  const client = opts.cloud ? await primaryClient(config.uri, options, makeClient) : await connected(makeClient(config.uri, options));
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
 * mongodb+srv:// URI is refused: its hosts come from DNS and would be discovered the same way.
 */
async function primaryClient(uri: string, options: MongoClientOptions, makeClient: MongoClientFactory): Promise<Client> {
  const m = URI.exec(uri);
  if (!m) throw new RefusedHostError('the MongoDB URI names no host');
  if (m[2]) {
    throw new RefusedHostError(
      'a mongodb+srv:// URI cannot be used from Trove cloud (the members it leads to cannot be checked before the driver connects): name the hosts, mongodb://host1,host2/',
    );
  }
  const params = new URLSearchParams(m[4]!.split('?')[1] ?? '');
  const option = (name: string) => [...params].find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const proxy = option('proxyHost');
  for (const host of [...mongoHosts(uri).hosts, ...(proxy ? [proxy] : [])]) {
    checkLiteralHost(host);
    await resolveHost(host);
  }
  const guarded: MongoClientOptions = { ...options, lookup: guardedLookup as unknown as MongoClientOptions['lookup'] };
  // A load balancer is the only server a load-balanced client talks to: it discovers nothing (and refuses directConnection).
  if (option('loadBalanced') === 'true') return connected(makeClient(uri, guarded));

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
    checkLiteralHost(hostOf(primary));
    await resolveHost(hostOf(primary));
    const next = await attempt(primary);
    if (next.client) return next.client;
  }
  throw new Error(`no primary among the MongoDB hosts tried (${[...tried].join(', ')})`);
}
