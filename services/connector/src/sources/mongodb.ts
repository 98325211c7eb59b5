import { BSON, MongoClient, type MongoClientOptions } from 'mongodb';
import { bindMongoFilter } from '../domain/last-pull';
import { checkLiteralHost, guardedLookup, resolveHost } from '../net/address-guard';
import type { Pages, PullOptions, Row } from './types';

interface MongoConfig {
  uri: string;
  database: string;
  collection: string;
}

/** The hosts a MongoDB URI names (one, a seed list, or the SRV name), without their ports. */
export function mongoHosts(uri: string): { srv: boolean; hosts: string[] } {
  const m = /^mongodb(\+srv)?:\/\/(?:[^@/]*@)?([^/?]*)/i.exec(uri);
  if (!m) return { srv: false, hosts: [] };
  const hosts = m[2]!
    .split(',')
    .filter(Boolean)
    .map((h) => (h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '')))
    .map((h) => decodeURIComponent(h));
  return { srv: Boolean(m[1]), hosts };
}

/** Makes the client; tests of code around it may pass another maker (see test/drivers.test.ts). */
export type MongoClientFactory = (uri: string, options: MongoClientOptions) => Pick<MongoClient, 'connect' | 'db' | 'close'>;

/**
 * MongoDB (the official driver): `query` is a filter in (extended) JSON whose ":last_pull" string values become the
 * date; documents are read with a cursor of batchSize, each server call under maxTimeMS. In cloud mode every host
 * of the URI is checked before connecting, and every connection the driver opens resolves its host through
 * guardedLookup (an SRV record's targets and replica-set members included, when named).
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
  if (opts.cloud) {
    const { srv, hosts } = mongoHosts(config.uri);
    for (const host of hosts) {
      checkLiteralHost(host);
      if (!srv) await resolveHost(host);
    }
    options.lookup = guardedLookup as unknown as MongoClientOptions['lookup'];
  }
  const filter = bindMongoFilter(BSON.EJSON.parse(query, { relaxed: true }), opts.lastPull) as Record<string, unknown>;
  const client = makeClient(config.uri, options);
  try {
    await client.connect();
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
