import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ingestionModule } from '@trove/ingestion-service';
import { recordsModule } from '@trove/records-service';
import { createTestDatabase, startTestSystem, testClient, type TestDatabase, type TestService } from '@trove/testing';
import { connectorModule } from '../src';

export const KEY_A = randomBytes(32).toString('hex');
export const KEY_B = randomBytes(32).toString('base64');

/**
 * The real records and ingestion services, each on a port of its own, and connector services pulling into them, on
 * one fresh test database, as they run in production.
 */
export interface Stack {
  db: TestDatabase;
  records: TestService;
  ingestion: TestService;
  connector: TestService;
  /** Another connector service on the same database (another replica), with its own configuration. */
  startConnector(config?: Record<string, string>): Promise<TestService>;
  /** The tenant's active records of a collection, as records lists them. */
  recordsOf(tenant: string, collection: string): Promise<{ id: string; name: string }[]>;
  stop(): Promise<void>;
}

/** `config` is every connector service's. */
export async function startStack(config: Record<string, string> = {}): Promise<Stack> {
  const sys = await startTestSystem([recordsModule, ingestionModule, connectorModule], {
    listen: ['records', 'ingestion'],
    configOf: { connector: { CONNECTOR_ENCRYPTION_KEY: KEY_A, ...config } },
  });
  const records = sys.service('records');
  return {
    db: sys.db,
    records,
    ingestion: sys.service('ingestion'),
    connector: sys.service('connector'),
    startConnector: (cfg = {}) => sys.replica(connectorModule, cfg),
    async recordsOf(tenant, collection) {
      const items: { id: string; name: string }[] = [];
      let cursor: string | undefined;
      do {
        const res = await testClient(records, tenant, ['records'])
          .get('/records')
          .query({ collection, limit: 100, ...(cursor ? { cursor } : {}) });
        if (res.status !== 200) throw new Error(`records answered ${res.status}`);
        items.push(...res.body.items);
        cursor = res.body.has_more ? res.body.cursor : undefined;
      } while (cursor);
      return items;
    },
    stop: () => sys.stop(),
  };
}

/** A database of the test's own on the PostgreSQL test server, as a tenant's source, with a client for raw SQL. */
export async function sourcePostgres(): Promise<{ dsn: string; query(sql: string, values?: unknown[]): Promise<pg.QueryResult>; drop(): Promise<void> }> {
  const source = await createTestDatabase();
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  return {
    dsn: source.url,
    query: (sql, values) => client.query(sql, values),
    async drop() {
      await client.end();
      await source.drop();
    },
  };
}

/** A database of the test's own on the MariaDB server on 127.0.0.1:3306 (root, no password). */
export async function sourceMysql(): Promise<{ database: string; connection: mysql.Connection; drop(): Promise<void> }> {
  const database = `trove_src_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', timezone: 'Z' });
  await connection.query(`create database ${database}`);
  await connection.query(`use ${database}`);
  return {
    database,
    connection,
    async drop() {
      await connection.query(`drop database if exists ${database}`);
      await connection.end();
    },
  };
}
