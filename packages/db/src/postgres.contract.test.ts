import { createTestDatabase } from '@trove/testing';
import { databaseContract } from './database.contract';
import { openDatabase } from './factory';

databaseContract('PostgreSQL server', async () => {
  const test = await createTestDatabase();
  // One connection, so every case after a failed COPY runs on the connection that failed.
  const database = await openDatabase({ url: test.url, poolSize: 1 });
  return { database, done: () => test.drop() };
});
