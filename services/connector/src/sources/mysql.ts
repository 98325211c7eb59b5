import mysql from 'mysql2';
import { bindLastPull } from '../domain/last-pull';
import { decimalValue } from '../domain/values';
import { resolveHost } from '../net/address-guard';
import type { Pages, PullOptions, Row } from './types';

interface MysqlConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

function run(connection: mysql.Connection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (err) => (err ? reject(err) : resolve())));
}

/**
 * MySQL and MariaDB (mysql2): `:last_pull` becomes `?`, bound once per occurrence. The session runs in UTC (dates
 * are sent and read as UTC) inside a READ ONLY transaction, with the server's statement time limit
 * (max_statement_time on MariaDB, max_execution_time on MySQL); rows are streamed from the server and the socket is
 * paused while a page waits to be read. In cloud mode the client connects to the checked address.
 */
export async function* mysqlPages(config: MysqlConfig, query: string, opts: PullOptions): Pages {
  const host = opts.cloud ? await resolveHost(config.host) : config.host;
  const connection = mysql.createConnection({
    host,
    port: config.port,
    user: config.user,
    password: config.password,
    database: config.database,
    connectTimeout: opts.connectTimeoutMs,
    timezone: 'Z',
    supportBigNumbers: true,
    // DECIMAL as a number when a double holds it exactly, else its text (decimalValue), as for PostgreSQL's numeric.
    typeCast: (field, next) => {
      if (field.type !== 'NEWDECIMAL' && field.type !== 'DECIMAL') return next();
      const text = field.string();
      return text === null ? null : decimalValue(text);
    },
    multipleStatements: false,
  });
  connection.on('error', () => undefined);
  const { text, count } = bindLastPull(query.trim().replace(/;+\s*$/, ''), '?');
  let finished = false;
  try {
    await new Promise<void>((resolve, reject) => connection.connect((err) => (err ? reject(err) : resolve())));
    await run(connection, "set time_zone = '+00:00'");
    const seconds = Math.max(1, Math.ceil(opts.statementTimeoutMs / 1000));
    await run(connection, `set session max_statement_time = ${seconds}`).catch(() =>
      run(connection, `set session max_execution_time = ${seconds * 1000}`).catch(() => undefined),
    );
    await run(connection, 'start transaction read only');
    const rows = connection.query({ sql: text, values: Array.from({ length: count }, () => opts.lastPull) }).stream({ highWaterMark: opts.batchSize });
    let page: Row[] = [];
    for await (const row of rows as AsyncIterable<Row>) {
      page.push(row);
      if (page.length >= opts.batchSize) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
    finished = true;
  } finally {
    // A stream stopped early cannot be ended politely: the rest of its result is still on the wire.
    if (finished) await new Promise<void>((resolve) => connection.end(() => resolve()));
    else connection.destroy();
  }
}
