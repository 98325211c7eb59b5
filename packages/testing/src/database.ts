import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '@trove/db';

/** The PostgreSQL server tests run against; CI starts it if it is down. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `trove_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 5 });
  return {
    url: url.toString(),
    database,
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: TEST_SERVER_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
