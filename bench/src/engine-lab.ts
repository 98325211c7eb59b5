/**
 * A lab for the PostgreSQL engine's query plans (not a reported benchmark): loads the generated catalogue straight
 * into a PostgresSearchEngine and the plain floor table (floor.ts) in a fresh database that it keeps, then prints its
 * URL.
 *
 *   node bench/dist/engine-lab.js [--records=100000]
 */
import pg from 'pg';
import { openDatabase } from '@trove/db';
import { PostgresSearchEngine, type IndexChange } from '@trove/search-engine';
import { benchArgs } from './args';
import { catalogue } from './catalogue';
import { loadFloor } from './floor';
import { SERVER_URL } from './system';

async function main() {
  const { records: count } = benchArgs({ records: 100_000 });
  const name = `trove_lab_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), poolSize: 4 });
  await db.db.schema.createSchema('search_engine').ifNotExists().execute();
  const engine = new PostgresSearchEngine(db);
  await engine.init();
  const tenant = '00000000-0000-4000-8000-000000000001';
  const all = [...catalogue(count, 42)];
  const t0 = performance.now();
  for (let i = 0; i < all.length; i += 1000) {
    const changes: IndexChange[] = all.slice(i, i + 1000).map((r, j) => ({
      op: 'upsert',
      active_generation: 1,
      document: {
        tenant_id: tenant, record_id: `00000000-0000-4000-8000-${String(i + j).padStart(12, '0')}`, version: 1, collection: 'catalogue',
        record_type: 'product', generation: 1, name: r.name, description: null, description_llm: '', collection_data: r.collection_data,
        source_type: 'api', status: 'active', visibility: 'public', updated_at: new Date().toISOString(),
      },
    }));
    await engine.apply(changes);
  }
  console.error(`engine: ${Math.round(all.length / ((performance.now() - t0) / 1000))} documents/s`);
  await engine.close();
  await db.close();
  console.error(`floor: ${Math.round(await loadFloor(url.toString(), all, tenant, 'catalogue'))} rows/s`);
  const m = new pg.Client({ connectionString: url.toString() });
  await m.connect();
  await m.query('vacuum (analyze) search_engine.documents');
  await m.end();
  console.log(url.toString());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
