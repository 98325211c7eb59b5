import neo4j, { type Driver } from 'neo4j-driver';
import { bindLastPull } from '../domain/last-pull';
import { literalAddress, resolveHost } from '../net/address-guard';
import type { Pages, PullOptions, Row } from './types';

interface Neo4jConfig {
  uri: string;
  user: string;
  password: string;
  database?: string;
}

/** Makes the driver; tests of code around it may pass another maker (see test/drivers.test.ts). */
export type Neo4jDriverFactory = (uri: string, auth: ReturnType<typeof neo4j.auth.basic>, config: Parameters<typeof neo4j.driver>[2]) => Driver;

function hostPort(address: string): { host: string; port: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(address);
  return { host: m?.[1] ?? address, port: m?.[2] ?? '7687' };
}

/**
 * Neo4j (neo4j-driver): `query` is Cypher; `:last_pull` (outside strings and labels) becomes `$last_pull`, and the
 * parameter `last_pull` is a DateTime of the value (UTC). Records are streamed with fetchSize batchSize in a READ
 * session, the transaction under the statement timeout; each record becomes an object of its keys. In cloud mode the
 * URI's host is checked before connecting, a plain (unencrypted) URI is pointed at the checked address, and the
 * driver's resolver checks every address a routing table names.
 */
export async function* neo4jPages(config: Neo4jConfig, query: string, opts: PullOptions, makeDriver: Neo4jDriverFactory = neo4j.driver): Pages {
  let uri = config.uri;
  let resolver: ((address: string) => Promise<string[]>) | undefined;
  if (opts.cloud) {
    const url = new URL(config.uri);
    const checked = await resolveHost(url.hostname);
    if (!url.protocol.includes('+') && literalAddress(url.hostname) === undefined) {
      url.hostname = checked.includes(':') ? `[${checked}]` : checked;
      uri = url.toString();
    }
    resolver = async (address) => {
      const { host, port } = hostPort(address);
      const ip = await resolveHost(host);
      return [`${ip.includes(':') ? `[${ip}]` : ip}:${port}`];
    };
  }
  const driver = makeDriver(uri, neo4j.auth.basic(config.user, config.password), {
    connectionTimeout: opts.connectTimeoutMs,
    connectionAcquisitionTimeout: opts.connectTimeoutMs,
    maxConnectionPoolSize: 1,
    fetchSize: opts.batchSize,
    userAgent: 'trove-connector',
    ...(resolver ? { resolver } : {}),
  });
  const { text } = bindLastPull(query, '$last_pull');
  try {
    const session = driver.session({ database: config.database, defaultAccessMode: neo4j.session.READ, fetchSize: opts.batchSize });
    try {
      const result = session.run(text, { last_pull: neo4j.types.DateTime.fromStandardDate(opts.lastPull) }, { timeout: opts.statementTimeoutMs });
      let page: Row[] = [];
      for await (const record of result) {
        page.push(record.toObject() as Row);
        if (page.length >= opts.batchSize) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    } finally {
      await session.close().catch(() => undefined);
    }
  } finally {
    await driver.close().catch(() => undefined);
  }
}
