import { openDatabase } from '@trove/db';
import { searchEngineContract } from './engine.contract';
import { PostgresSearchEngine } from './postgres/engine';

searchEngineContract('PostgreSQL on PGlite', async () => {
  const database = await openDatabase({ inMemory: true });
  const engine = new PostgresSearchEngine(database);
  return {
    engine,
    async close() {
      await engine.close();
      await database.close();
    },
  };
});
