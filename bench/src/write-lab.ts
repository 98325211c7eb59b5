/**
 * A lab for the PostgreSQL engine's write side (not a reported benchmark): writes the generated catalogue straight into
 * a PostgresSearchEngine on a fresh database, 1,000 documents an apply as search's indexer sends them, and prints the
 * CPU time per document of this process (building the rows) and of the database's backends (cpu.ts). The database is
 * dropped afterwards.
 *
 *   node bench/dist/write-lab.js [--records=30000]
 *
 * LAB_DROP=documents_name_trgm,documents_data drops those indexes first (what each one costs a document);
 * LAB_SQL='alter index ...; ...' runs statements first (storage settings); LAB_IDS=random gives the documents random
 * record ids (as records' randomUUID() does) instead of ascending ones. Prints the documents/s of each tenth of the
 * load as it goes (how writing slows as the table grows).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, sql } from '@trove/db';
import { PostgresSearchEngine, type IndexChange } from '@trove/search-engine';
import { benchArgs } from './args';
import { catalogue } from './catalogue';
import { CpuMeter } from './cpu';
import { SERVER_URL } from './system';

async function main() {
  const { records: count } = benchArgs({ records: 30_000 });
  const name = `trove_wlab_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  try {
    const db = await openDatabase({ url: url.toString(), poolSize: 2 });
    await db.db.schema.createSchema('search_engine').ifNotExists().execute();
    const engine = new PostgresSearchEngine(db);
    await engine.init();
    for (const index of (process.env.LAB_DROP ?? '').split(',').filter(Boolean)) await sql`drop index ${sql.raw(`search_engine.${index}`)}`.execute(db.db);
    for (const stmt of (process.env.LAB_SQL ?? '').split(';').filter(Boolean)) await sql.raw(stmt).execute(db.db);
    const tenant = '00000000-0000-4000-8000-000000000001';
    const all = [...catalogue(count, 42)];
    const meter = await CpuMeter.start(url.toString(), []);
    // Each batch built as it is sent (a million documents built at once would not fit the heap twice over).
    const batch = (i: number): IndexChange[] =>
      all.slice(i, i + 1000).map((r, j): IndexChange => {
        // The description as a field of its own (as file uploads map it) and a description_llm like records generates.
        const { description, ...data } = r.collection_data;
        return {
          op: 'upsert',
          active_generation: 1,
          document: {
            tenant_id: tenant, record_id: process.env.LAB_IDS === 'random' ? randomUUID() : `00000000-0000-4000-8000-${String(i + j).padStart(12, '0')}`, version: 1, collection: 'catalogue',
            record_type: 'product', generation: 1, name: r.name, description,
            description_llm: `${r.name} is a product record in the catalogue collection. ${Object.entries(data).map(([k, v]) => `${k}: ${String(v)}`).join(', ')}`,
            collection_data: data, source_type: 'api', status: 'active', visibility: 'private', updated_at: new Date().toISOString(),
          },
        };
      });
    const from = await meter.mark();
    const node0 = process.cpuUsage();
    const batches = Math.ceil(all.length / 1000);
    const tenth = Math.max(1, Math.ceil(batches / 10));
    let t0 = performance.now();
    for (let n = 0; n < batches; n++) {
      await engine.apply(batch(n * 1000));
      if ((n + 1) % tenth === 0 || n === batches - 1) {
        const took = (performance.now() - t0) / 1000;
        console.error(`up to ${Math.min(all.length, (n + 1) * 1000)} documents: ${Math.round((((n % tenth) + 1) * 1000) / took)} documents/s`);
        t0 = performance.now();
      }
    }
    const node = process.cpuUsage(node0);
    const usage = CpuMeter.between(from, await meter.mark());
    console.log(`PostgreSQL ${((1e6 * usage.postgres) / all.length).toFixed(1)} µs/doc, Node ${((node.user + node.system) / all.length).toFixed(1)} µs/doc`);
    await meter.stop();
    await engine.close();
    await db.close();
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
