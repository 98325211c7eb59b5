import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseContract } from './database.contract';
import { openDatabase } from './factory';

databaseContract('PGlite in a data folder', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trove-db-contract-'));
  const database = await openDatabase({ dataDir });
  return {
    database,
    async done() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
