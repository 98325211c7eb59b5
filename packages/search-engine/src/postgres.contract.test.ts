import { createTestDatabase } from '@trove/testing';
import { runAll } from './engine.contract';
import { PostgresSearchEngine } from './postgres/engine';

runAll('PostgreSQL server', async () => {
  const testDb = await createTestDatabase();
  const engine = new PostgresSearchEngine(testDb.database);
  return {
    engine,
    async close() {
      await engine.close();
      await testDb.drop();
    },
  };
});
