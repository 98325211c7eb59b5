import { openDatabase } from '@trove/db';
import { runAll } from './engine.contract';
import { PostgresSearchEngine } from './postgres/engine';

runAll('PostgreSQL on PGlite', async () => {
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
