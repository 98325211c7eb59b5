/**
 * Ingestion benchmark: starts the whole system (--target=all) on a fresh PostgreSQL database, uploads a generated
 * catalogue through the gateway (batches, a CSV file, an NDJSON file), checks every record was stored, and measures
 * in the same run two floors of inserting the same rows straight into PostgreSQL (INSERT statements, and COPY).
 *
 * Each phase starts once search has indexed everything before it, and reports both when its records were stored and
 * when search had indexed them all; the floors are measured with search idle.
 *
 *   node bench/dist/ingest.js [--batches 10] [--batch-size 10000] [--file-mb 50]
 *
 * BENCH_KEEP_DATABASE=1 leaves the database in place afterwards; system.ts lists the other BENCH_* options.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { copyInto, openDatabase, type CopyValue } from '@trove/db';
import { catalogue, csvHeader, csvLine, ndjsonLine, type CatalogueRecord } from './catalogue';
import { benchArgs } from './args';
import { mb, procStatus, resetPeak } from './proc';
import { startSystem, type RunningSystem } from './system';


interface Row {
  phase: string;
  records: number;
  seconds: number;
  /** From the first request until search had indexed every record of the phase. */
  indexedSeconds?: number;
  note?: string;
}

const since = (t0: number, t: number | undefined) => (t === undefined ? undefined : (t - t0) / 1000);

/** Whether the system runs the search service (BENCH_TARGET may leave it out; see system.ts). */
const INDEXING = !process.env.BENCH_TARGET || /\b(all|search)\b/.test(process.env.BENCH_TARGET);

/** Waits until search has acknowledged every stored record (none pending or being indexed); returns when that was. */
async function indexingDrained(db: pg.Client, tenant: string): Promise<number | undefined> {
  if (!INDEXING) return undefined;
  for (;;) {
    const { rows } = await db.query(
      `select count(*)::int as n from records.indexing where tenant_id = $1 and status in ('pending', 'processing')`,
      [tenant],
    );
    if (rows[0].n === 0) return performance.now();
    // Each look counts the backlog (a few ms of PostgreSQL time at 50,000), so it is not taken more often.
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const { batches, 'batch-size': batchSize, 'file-mb': fileMb } = benchArgs({ batches: 10, 'batch-size': 10_000, 'file-mb': 50 });
  const work = mkdtempSync(join(tmpdir(), 'trove-bench-'));
  const rows: Row[] = [];
  let system: RunningSystem | undefined;

  try {
    system = await startSystem(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}, Boolean(process.env.BENCH_KEEP_DATABASE));
    const { child, base, dbUrl, tenant, key } = system;
    const auth = { authorization: `Bearer ${key}` };
    // Each phase starts once search has caught up with the one before, so no phase pays for another's indexing.
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();

    // 1. Batches: request to every record stored (the 201 answers after the last chunk committed).
    const bodies: string[] = [];
    for (let b = 0; b < batches; b++) bodies.push(JSON.stringify({ records: [...catalogue(batchSize, 1000 + b, b * batchSize)] }));
    let t0 = performance.now();
    let accepted = 0;
    for (const body of bodies) {
      const res = await fetch(`${base}/api/v1/upload/catalogue/product/batch`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      const json = (await res.json()) as { summary?: { accepted: number } };
      if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${JSON.stringify(json).slice(0, 500)}`);
      accepted += json.summary!.accepted;
    }
    const batchSeconds = (performance.now() - t0) / 1000;
    if (accepted !== batches * batchSize) throw new Error(`batches accepted ${accepted} of ${batches * batchSize}`);
    rows.push({ phase: `batch (${batches} × ${batchSize})`, records: accepted, seconds: batchSeconds, indexedSeconds: since(t0, await indexingDrained(db, tenant)) });

    // 2. Files: generated to the target size, uploaded as multipart through the gateway.
    const offset = batches * batchSize;
    for (const kind of ['csv', 'ndjson'] as const) {
      const path = join(work, `catalogue.${kind}`);
      const out = createWriteStream(path);
      let n = 0;
      let size = 0;
      const target = fileMb * 1024 * 1024 - 4096;
      if (kind === 'csv') size += Buffer.byteLength(csvHeader()), out.write(csvHeader());
      for (const r of catalogue(10_000_000, kind === 'csv' ? 7 : 8, offset + (kind === 'csv' ? 0 : 5_000_000))) {
        const line = kind === 'csv' ? csvLine(r) : ndjsonLine(r);
        const len = Buffer.byteLength(line);
        if (size + len > target) break;
        out.write(line);
        size += len;
        n++;
      }
      await new Promise<void>((r) => out.end(r));
      const form = new FormData();
      form.append('file', await openAsBlob(path), `catalogue.${kind}`);
      const baseline = procStatus(child.pid!, 'VmRSS');
      const peakReset = resetPeak(child.pid!);
      t0 = performance.now();
      const res = await fetch(`${base}/api/v1/upload/catalogue/product/upload`, { method: 'POST', headers: auth, body: form });
      const json = (await res.json()) as { summary?: { accepted: number; rejected: number } };
      const seconds = (performance.now() - t0) / 1000;
      const peak = procStatus(child.pid!, 'VmHWM');
      const indexedSeconds = since(t0, await indexingDrained(db, tenant));
      if (res.status !== 201) throw new Error(`${kind} upload answered ${res.status}: ${JSON.stringify(json).slice(0, 500)}`);
      if (json.summary!.accepted !== n) throw new Error(`${kind}: accepted ${json.summary!.accepted} of ${n} (${json.summary!.rejected} rejected)`);
      rows.push({
        phase: `${kind} file (${mb(statSync(path).size)})`,
        records: n,
        seconds,
        indexedSeconds,
        note: peakReset ? `process peak RSS ${mb(peak)}, ${mb(peak - baseline)} above its ${mb(baseline)} before` : 'peak RSS not measurable',
      });
    }

    // Every record stored: count in the records service's table.
    const stored = Number((await db.query('select count(*) from records.records where tenant_id = $1', [tenant])).rows[0].count);
    const expected = rows.reduce((s, r) => s + r.records, 0);
    if (stored !== expected) throw new Error(`stored ${stored} records, expected ${expected}`);

    // 3. Floors: the same batch rows inserted straight into a copy of the records table (same columns and indexes), one
    // transaction per 10,000, with search idle; once with 1,000-row INSERT statements reading a JSON parameter, once
    // with 1,000-row COPYs as records itself writes them (copyInto, the same encoding and driver).
    const template = (await db.query('select * from records.records where tenant_id = $1 limit 1', [tenant])).rows[0];
    const columns: string[] = (
      await db.query(
        `select column_name from information_schema.columns
         where table_schema = 'records' and table_name = 'records' and is_generated = 'NEVER' order by ordinal_position`,
      )
    ).rows.map((r: { column_name: string }) => r.column_name);
    const quoted = columns.map((c) => `"${c}"`).join(', ');
    const floorRecords: CatalogueRecord[] = [];
    for (let b = 0; b < batches; b++) floorRecords.push(...catalogue(batchSize, 1000 + b, b * batchSize));
    const floorChunks = (from: number) => {
      const chunks: Record<string, unknown>[][] = [];
      for (let j = from; j < Math.min(from + 10_000, floorRecords.length); j += 1000) {
        chunks.push(floorRecords.slice(j, j + 1000).map((r) => ({ ...template, id: randomUUID(), name: r.name, source_id: r.source_id, collection_data: r.collection_data })));
      }
      return chunks;
    };
    /** Seconds to write every floor record, `transaction` taking the 1,000-row chunks of each 10,000. */
    const floor = async (table: string, transaction: (chunks: Record<string, unknown>[][]) => Promise<unknown>) => {
      await db.query(`create table ${table} (like records.records including all)`);
      const started = performance.now();
      for (let i = 0; i < floorRecords.length; i += 10_000) await transaction(floorChunks(i));
      return (performance.now() - started) / 1000;
    };
    const insertSeconds = await floor('public.bench_floor', async (chunks) => {
      await db.query('begin');
      for (const chunk of chunks) {
        await db.query(`insert into public.bench_floor (${quoted}) select ${quoted} from jsonb_populate_recordset(null::public.bench_floor, $1::jsonb)`, [
          JSON.stringify(chunk),
        ]);
      }
      await db.query('commit');
    });
    const copier = await openDatabase({ url: dbUrl, poolSize: 1 });
    try {
      const copySeconds = await floor('public.bench_floor_copy', (chunks) =>
        copier.db.transaction().execute(async (trx) => {
          for (const chunk of chunks) await copyInto(trx, 'public.bench_floor_copy', columns, chunk.map((r) => columns.map((c) => (r[c] ?? null) as CopyValue)));
        }),
      );
      rows.push(
        { phase: 'floor: straight INSERT', records: floorRecords.length, seconds: insertSeconds },
        { phase: 'floor: straight COPY', records: floorRecords.length, seconds: copySeconds },
      );
    } finally {
      await copier.close();
    }
    await db.end();

    const rate = (r: Row) => r.records / r.seconds;
    const percent = (r: Row, floor: Row) => `${((100 * rate(r)) / rate(floor)).toFixed(0)} %`;
    const [insertFloor, copyFloor] = rows.slice(-2) as [Row, Row];
    console.log(`\nTrove ingestion benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${mb(totalmem())} RAM, --target=${process.env.BENCH_TARGET ?? 'all'}`);
    console.log('| phase | records | seconds to stored | records/s stored | of INSERT floor | of COPY floor | seconds to indexed | records/s indexed | notes |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const r of rows) {
      const indexed = r.indexedSeconds === undefined ? ['—', '—'] : [r.indexedSeconds.toFixed(2), Math.round(r.records / r.indexedSeconds)];
      console.log(
        `| ${r.phase} | ${r.records} | ${r.seconds.toFixed(2)} | ${Math.round(rate(r))} | ${percent(r, insertFloor)} | ${percent(r, copyFloor)} | ${indexed.join(' | ')} | ${r.note ?? ''} |`,
      );
    }
  } finally {
    await system?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
