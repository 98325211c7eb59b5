#!/usr/bin/env node
/**
 * Loads a generated catalogue of 100,000 documents (one tenant, one collection, plus a second tenant's noise) into a
 * fresh PostgreSQL database and prints latency percentiles of typical queries against the PostgreSQL engine.
 * Not a test: timings depend on the machine. Uses the compiled engine, so build first:
 *
 *   npx tsc -b packages/search-engine && node packages/search-engine/scripts/measure-postgres.js
 *
 * Options (environment): MEASURE_DATABASE_URL (server, default postgres://postgres@127.0.0.1:5432/postgres),
 * MEASURE_DOCS (default 100000), MEASURE_RUNS (per query kind, default 300), MEASURE_KEEP=1 keeps the database,
 * MEASURE_REUSE=<database> measures a database kept by an earlier run instead of loading a new one.
 */
const { randomUUID } = require('node:crypto');
const { openDatabase, sql } = require('@trove/db');
const { PostgresSearchEngine } = require('../dist/postgres/engine');
const { classifyQuery } = require('../dist/classify');

const SERVER = process.env.MEASURE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DOCS = Number(process.env.MEASURE_DOCS ?? 100_000);
const RUNS = Number(process.env.MEASURE_RUNS ?? 300);
const BATCH = 1_000;

// A deterministic generator, so runs compare.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = (list) => list[Math.floor(random() * list.length)];

const PRODUCTS = [
  ['Hex bolt', 'DIN 933', 'bolt'], ['Hex bolt', 'DIN 931', 'bolt'], ['Hex bolt', 'ISO 4017', 'bolt'],
  ['Socket cap screw', 'DIN 912', 'screw'], ['Socket cap screw', 'DIN EN ISO 4762', 'screw'],
  ['Hex nut', 'DIN 934', 'nut'], ['Hex nut', 'ISO 4032', 'nut'], ['Lock nut', 'DIN 985', 'nut'],
  ['Flat washer', 'DIN 125', 'washer'], ['Flat washer', 'ISO 7089', 'washer'], ['Spring washer', 'DIN 127', 'washer'],
  ['Threaded rod', 'DIN 976', 'rod'], ['Countersunk screw', 'DIN 7991', 'screw'], ['Wood screw', 'DIN 571', 'screw'],
  ['Set screw', 'DIN 913', 'screw'], ['Eye bolt', 'DIN 580', 'bolt'], ['Wing nut', 'DIN 315', 'nut'],
  ['Carriage bolt', 'DIN 603', 'bolt'], ['Blind rivet', 'ISO 15977', 'rivet'], ['Wall anchor', 'ETA 07', 'anchor'],
];
const MATERIALS = [
  ['stainless steel A2', 'stainless'], ['stainless steel A4', 'stainless'], ['galvanised steel', 'steel'],
  ['zinc plated steel 8.8', 'steel'], ['brass', 'brass'], ['aluminium', 'aluminium'], ['nylon', 'plastic'],
  ['steel 10.9 black', 'steel'],
];
const SIZES = ['M3', 'M4', 'M5', 'M6', 'M8', 'M10', 'M12', 'M16', 'M20', 'M24'];
const LENGTHS = [6, 8, 10, 12, 16, 20, 25, 30, 35, 40, 50, 60, 70, 80, 100, 120];
const USES = ['outdoor use', 'marine environments', 'machine building', 'furniture', 'automotive repair', 'construction', 'electrical cabinets'];

function ean13(n) {
  const body = String(4_000_000_000_00 + n).padStart(12, '0').slice(0, 12);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return body + ((10 - (sum % 10)) % 10);
}

function generate(tenant_id, i) {
  const [product, standard, kind] = pick(PRODUCTS);
  const [material, family] = pick(MATERIALS);
  const size = pick(SIZES);
  const length = pick(LENGTHS);
  const sku = `TR-${kind.slice(0, 3).toUpperCase()}-${String(i).padStart(6, '0')}`;
  const ean = ean13(i);
  const use = pick(USES);
  return {
    tenant_id,
    record_id: randomUUID(),
    version: 1,
    collection: 'fasteners',
    record_type: kind,
    generation: 1,
    name: `${product} ${size}x${length} ${material}`,
    description: random() < 0.5 ? `${product} to ${standard} in ${material}, suited to ${use}.` : null,
    description_llm: `${product} ${size} by ${length} mm made of ${material}. Standard ${standard}. Typical use: ${use}. Sold per box of ${pick([10, 25, 50, 100, 200])}.`,
    collection_data: {
      sku,
      ean: random() < 0.7 ? Number(ean) : ean,
      standard,
      material: family,
      finish: material,
      thread: size,
      length_mm: length,
      price: Math.round(random() * 5_000) / 100,
      in_stock: random() < 0.8,
      weight_g: Math.round(random() * 200),
      supplier: pick(['Würth', 'Bossard', 'Fabory', 'Reyher', 'Hoffmann']),
    },
    source_type: 'file_upload',
    status: random() < 0.97 ? 'active' : 'archived',
    visibility: random() < 0.1 ? 'public' : 'private',
    updated_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
  };
}

function percentiles(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { p50: at(50).toFixed(2), p95: at(95).toFixed(2), p99: at(99).toFixed(2), max: s[s.length - 1].toFixed(2) };
}

async function load(engine, database) {
  const tenant = randomUUID();
  const other = randomUUID();
  let started = Date.now();
  for (let i = 0; i < DOCS; i += BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(DOCS, i + BATCH); j++) batch.push({ op: 'upsert', document: generate(tenant, j), active_generation: 1 });
    const outcomes = await engine.apply(batch);
    if (outcomes.some((o) => o.status !== 'indexed')) throw new Error('apply failed');
  }
  const loadMs = Date.now() - started;
  // Another tenant's collection of a tenth the size, so scoping has work to do.
  for (let i = 0; i < DOCS / 10; i += BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(DOCS / 10, i + BATCH); j++) batch.push({ op: 'upsert', document: generate(other, DOCS + j), active_generation: 1 });
    await engine.apply(batch);
  }
  started = Date.now();
  await sql`vacuum analyze search_engine.documents`.execute(database.db);
  console.log(`loaded ${DOCS} documents in ${(loadMs / 1000).toFixed(1)} s (${Math.round(DOCS / (loadMs / 1000))}/s, batches of ${BATCH}); vacuum analyze ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const size = await sql`select pg_size_pretty(pg_total_relation_size('search_engine.documents')) as total,
    pg_size_pretty(pg_relation_size('search_engine.documents')) as heap`.execute(database.db);
  console.log(`table size ${size.rows[0].total} (heap ${size.rows[0].heap})`);
}

async function main() {
  const reuse = process.env.MEASURE_REUSE;
  const name = reuse ?? `trove_measure_${Date.now().toString(36)}`;
  const admin = await openDatabase({ url: SERVER, poolSize: 1 });
  if (!reuse) await sql.raw(`create database ${name}`).execute(admin.db);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 4 });
  const engine = new PostgresSearchEngine(database);
  try {
    await engine.init();
    if (!reuse) await load(engine, database);
    const tenant = (
      await sql`select tenant_id from search_engine.documents group by 1 order by count(*) desc limit 1`.execute(database.db)
    ).rows[0].tenant_id;
    const active = (
      await sql`select data from search_engine.documents where tenant_id = ${tenant} and searchable limit 5000`.execute(database.db)
    ).rows.map((r) => ({ collection_data: r.data }));

    const scope = { kind: 'private', tenant_id: tenant, collection: 'fasteners' };
    const text = (query) => ({ ...classifyQuery(query), query });
    const kinds = {
      keyword: () => ({
        scope,
        text: text(pick(['hex bolt', 'stainless steel', 'bolt m8', 'socket screw a4', 'galvanised wash', 'brass', 'nut m10 nylon', 'threaded rod stain', 'eye bolt', 'countersunk'])),
        filters: [],
      }),
      natural_language: () => ({
        scope,
        text: text(pick(['stainless steel bolts for outdoor use', 'which washer fits an m10 bolt', 'screws for furniture made of brass', 'what nuts are suited to marine environments'])),
        filters: [],
      }),
      identifier: () => {
        const d = pick(active);
        const q = pick([String(d.collection_data.ean), d.collection_data.sku, d.collection_data.sku.toLowerCase().replaceAll('-', '')]);
        return { scope, text: text(q), filters: [] };
      },
      standard: () => ({ scope, text: text(pick(['DIN 933', 'din912', 'ISO 4762', 'DIN 125'])), filters: [] }),
      keyword_filtered: () => ({
        scope,
        text: text(pick(['hex bolt', 'washer', 'socket screw'])),
        filters: [
          { field: 'material', op: 'eq', value: pick(['stainless', 'steel', 'brass']) },
          { field: 'price', op: 'lte', value: 25 },
        ],
      }),
      filters_only: () => ({
        scope,
        filters: [
          { field: 'material', op: 'eq', value: pick(['stainless', 'brass', 'aluminium']) },
          { field: 'in_stock', op: 'eq', value: true },
        ],
      }),
      keyword_sorted: () => ({ scope, text: text(pick(['hex bolt', 'washer m8'])), filters: [], sort: { field: 'price', direction: 'asc' } }),
      typo: () => ({ scope, text: text(pick(['stainles stel', 'socet screw', 'wahser'])), filters: [] }),
      public: () => ({ scope: { kind: 'public' }, text: text(pick(['hex bolt', 'brass', 'washer'])), filters: [] }),
    };
    const aggregates = {
      aggregate_group: () => ({ scope, filters: [], group_by: pick(['material', 'thread', 'supplier']) }),
      aggregate_stats: () => ({ scope, filters: [{ field: 'material', op: 'eq', value: 'steel' }], group_by: 'thread', stats: ['price', 'weight_g'] }),
    };

    for (const [kind, make] of [...Object.entries(kinds), ...Object.entries(aggregates)]) {
      const isAggregate = kind in aggregates;
      const run = (q) => (isAggregate ? engine.aggregate(q) : engine.search({ limit: 20, offset: 0, ...q }));
      for (let i = 0; i < 10; i++) await run(make());
      const samples = [];
      let hits = 0;
      for (let i = 0; i < RUNS; i++) {
        const q = make();
        const t0 = process.hrtime.bigint();
        const result = await run(q);
        samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
        hits += isAggregate ? result.groups.length : result.hits.length;
      }
      console.log(`${kind.padEnd(18)} ${JSON.stringify(percentiles(samples))} ms, ${(hits / RUNS).toFixed(1)} hits or groups per query`);
    }
  } finally {
    await engine.close();
    await database.close();
    if (!process.env.MEASURE_KEEP && !reuse) await sql.raw(`drop database if exists ${name} with (force)`).execute(admin.db);
    else console.log(`kept database ${name}`);
    await admin.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
