import pg from 'pg';
import { parse } from 'pg-connection-string';
import { bindLastPull } from '../domain/last-pull';
import { decimalValue } from '../domain/values';
import { RefusedHostError, resolveHost } from '../net/address-guard';
import type { Pages, PullOptions } from './types';

const INT8 = 20;
const NUMERIC = 1700;

/** bigint (int8): a number while it is a safe integer, else its decimal text (toJson's rule for integers). */
function int8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/**
 * Type parsers of the tenant's rows: pg's defaults, numeric as decimalValue reads it, but never the process-wide ones Trove's own database sets (it
 * reads int8 as Number, which would round a large bigint of a tenant's row).
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    format === 'binary' ? pg.types.getTypeParser(oid, format) : oid === INT8 ? int8 : oid === NUMERIC ? decimalValue : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The query as one statement: a trailing semicolon would end the DECLARE around it. */
function statementOf(query: string): string {
  return query.trim().replace(/;+\s*$/, '');
}

/**
 * PostgreSQL (pg): `:last_pull` becomes `$1::timestamptz`. The query runs in a READ ONLY transaction as a
 * server-side cursor (DECLARE … CURSOR) fetched batchSize rows at a time, each FETCH under statement_timeout. In cloud
 * mode the client connects to the checked address (TLS still verifies the name given).
 */
export async function* postgresqlPages(config: { dsn: string }, query: string, opts: PullOptions): Pages {
  const parsed = parse(config.dsn);
  const name = parsed.host ?? 'localhost';
  let host = name;
  if (opts.cloud) {
    if (name.startsWith('/')) throw new RefusedHostError('a Unix socket is not a reachable connector host in Trove cloud');
    host = await resolveHost(name);
  }
  const ssl = parsed.ssl === true ? { servername: name } : parsed.ssl && typeof parsed.ssl === 'object' ? { ...parsed.ssl, servername: name } : parsed.ssl;
  const client = new pg.Client({
    ...(parsed as pg.ClientConfig),
    host,
    port: parsed.port ? Number(parsed.port) : 5432,
    ssl: ssl as pg.ClientConfig['ssl'],
    connectionTimeoutMillis: opts.connectTimeoutMs,
    statement_timeout: opts.statementTimeoutMs,
    query_timeout: opts.statementTimeoutMs + 1000,
    application_name: 'trove-connector',
    types: TYPES,
  });
  // A connection lost between queries is reported by the next query; an unheard 'error' event would end the process.
  client.on('error', () => undefined);
  const { text, count } = bindLastPull(statementOf(query), '$1::timestamptz');
  let open = false;
  try {
    await client.connect();
    open = true;
    await client.query('begin transaction read only');
    await client.query(`declare trove_pull no scroll cursor for ${text}`, count > 0 ? [opts.lastPull] : []);
    for (;;) {
      const page = await client.query(`fetch forward ${opts.batchSize} from trove_pull`);
      if (page.rows.length > 0) yield page.rows as Record<string, unknown>[];
      if (page.rows.length < opts.batchSize) break;
    }
  } finally {
    if (open) await client.query('rollback').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
