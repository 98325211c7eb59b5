/**
 * Ingestion benchmark: starts the whole system (--target=all) on a fresh PostgreSQL database, uploads a generated
 * catalogue through the gateway (batches, a CSV file, an NDJSON file), checks every record was stored, and measures
 * in the same run the floor (floor.ts: the batch records inserted into one plain table with 1,000-row INSERTs
 * on 2 connections), printing the stored and searchable rates of the batch uploads as ratios of it.
 *
 * Each phase starts once search has indexed everything before it, and reports both when its records were stored and
 * when search had indexed them all, and the CPU time per record its processes and PostgreSQL's backends spent from
 * its first request until then (cpu.ts); the floor is measured with search idle.
 *
 *   node bench/dist/ingest.js [--batches 10] [--batch-size 10000] [--file-mb 50]
 *
 * --file-mb 0 leaves the file uploads out (a shorter run measuring batch uploads only).
 *
 * BENCH_KEEP_DATABASE=1 leaves the database in place afterwards; system.ts lists the other BENCH_* options.
 */
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { catalogue, csvHeader, csvLine, ndjsonLine, type CatalogueRecord } from './catalogue';
import { benchArgs } from './args';
import { CpuMeter, type CpuUsage } from './cpu';
import { loadFloor } from './floor';
import { mb, procStatus, resetPeak } from './proc';
import { startSystem, type RunningSystem } from './system';


interface Row {
  phase: string;
  records: number;
  seconds: number;
  /** From the first request until search had indexed every record of the phase. */
  indexedSeconds?: number;
  /** From the first request until the phase was searchable (stored, when search does not run). */
  cpu: CpuUsage;
  note?: string;
}

/** The collection the uploads write to (the upload routes' path). */
const COLLECTION = 'catalogue';

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
  let meter: CpuMeter | undefined;

  try {
    system = await startSystem(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}, Boolean(process.env.BENCH_KEEP_DATABASE));
    const { child, base, dbUrl, tenant, key } = system;
    const auth = { authorization: `Bearer ${key}` };
    // Each phase starts once search has caught up with the one before, so no phase pays for another's indexing.
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const targets = (process.env.BENCH_TARGET ?? 'all').split(';');
    const ownPid = (await db.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    meter = await CpuMeter.start(dbUrl, system.children.map((c) => c.pid!), [ownPid]);

    // 1. Batches: request to every record stored (the 201 answers after the last chunk committed).
    const bodies: string[] = [];
    for (let b = 0; b < batches; b++) bodies.push(JSON.stringify({ records: [...catalogue(batchSize, 1000 + b, b * batchSize)] }));
    let from = await meter.mark();
    let t0 = performance.now();
    let accepted = 0;
    for (const body of bodies) {
      const res = await fetch(`${base}/api/v1/upload/${COLLECTION}/product/batch`, {
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
    const batchIndexed = since(t0, await indexingDrained(db, tenant));
    rows.push({ phase: `batch (${batches} × ${batchSize})`, records: accepted, seconds: batchSeconds, indexedSeconds: batchIndexed, cpu: CpuMeter.between(from, await meter.mark()) });

    // 2. Files: generated to the target size, uploaded as multipart through the gateway.
    const offset = batches * batchSize;
    for (const kind of fileMb > 0 ? (['csv', 'ndjson'] as const) : []) {
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
      from = await meter.mark();
      t0 = performance.now();
      const res = await fetch(`${base}/api/v1/upload/${COLLECTION}/product/upload`, { method: 'POST', headers: auth, body: form });
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
        cpu: CpuMeter.between(from, await meter.mark()),
        note: peakReset ? `process peak RSS ${mb(peak)}, ${mb(peak - baseline)} above its ${mb(baseline)} before` : 'peak RSS not measurable',
      });
    }

    // Every record stored: count in the records service's table.
    const stored = Number((await db.query('select count(*) from records.records where tenant_id = $1', [tenant])).rows[0].count);
    const expected = rows.reduce((s, r) => s + r.records, 0);
    if (stored !== expected) throw new Error(`stored ${stored} records, expected ${expected}`);

    // 3. The floor (floor.ts): the batch records in one plain table, 1,000-row INSERTs on 2 connections,
    // with search idle.
    const floorRecords: CatalogueRecord[] = [];
    for (let b = 0; b < batches; b++) floorRecords.push(...catalogue(batchSize, 1000 + b, b * batchSize));
    const floorFrom = await meter.mark();
    const floorRate = await loadFloor(dbUrl, floorRecords, tenant, COLLECTION);
    const floorCpu = CpuMeter.between(floorFrom, await meter.mark());
    await db.end();

    const rate = (r: Row) => r.records / r.seconds;
    const ratio = (n: number) => `${(n / floorRate).toFixed(2)}×`;
    const us = (seconds: number, records: number) => ((1e6 * seconds) / records).toFixed(0);
    console.log(`\nTrove ingestion benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${mb(totalmem())} RAM, --target=${targets.join(';')}`);
    console.log(`Floor (floor.ts: the batch records in one plain table, 1,000-row INSERTs on 2 connections): ${Math.round(floorRate)} rows/s, PostgreSQL ${us(floorCpu.postgres, floorRecords.length)} µs of CPU a row (its vacuum (analyze) included)`);
    console.log('| phase | records | seconds to stored | records/s stored | of floor | seconds to searchable | records/s searchable | of floor | notes |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const r of rows) {
      const indexed = r.indexedSeconds === undefined ? ['—', '—', '—'] : [r.indexedSeconds.toFixed(2), Math.round(r.records / r.indexedSeconds), ratio(r.records / r.indexedSeconds)];
      console.log(`| ${r.phase} | ${r.records} | ${r.seconds.toFixed(2)} | ${Math.round(rate(r))} | ${ratio(rate(r))} | ${indexed.join(' | ')} | ${r.note ?? ''} |`);
    }
    // CPU per record from the first request until the phase was searchable (stored, without search): the figure that
    // holds while other work shares the machine.
    // PostgreSQL's time is split by the process each backend serves; "other" is autovacuum's.
    console.log(`\nCPU per record, µs (/proc: utime + stime of each system process, and of the bench database's PostgreSQL backends):`);
    console.log(`| phase | ${targets.map((t) => `Node (${t}) | PostgreSQL for it`).join(' | ')} | PostgreSQL, other | PostgreSQL in all | together |`);
    console.log(`|---|${targets.map(() => '---:|---:|').join('')}---:|---:|---:|`);
    for (const r of rows) {
      const node = r.cpu.processes.reduce((a, b) => a + b, 0);
      const other = Math.max(0, r.cpu.postgres - r.cpu.postgresFor.reduce((a, b) => a + b, 0));
      const perProcess = r.cpu.processes.map((s, i) => `${us(s, r.records)} | ${us(r.cpu.postgresFor[i]!, r.records)}`);
      console.log(`| ${r.phase} | ${perProcess.join(' | ')} | ${us(other, r.records)} | ${us(r.cpu.postgres, r.records)} | ${us(node + r.cpu.postgres, r.records)} |`);
    }

    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const batch = rows[0]!;
    console.log("\nAgainst the targets of bench/README.md (batch uploads through the gateway against the floor of this run):");
    console.log(`- records stored at least 0.5× the floor's INSERT rows/s: ${verdict(rate(batch) >= 0.5 * floorRate)} (${Math.round(rate(batch))} vs ${Math.round(floorRate)}, ${ratio(rate(batch))})`);
    if (batch.indexedSeconds !== undefined) {
      const searchable = batch.records / batch.indexedSeconds;
      console.log(`- records searchable at least 0.33× the floor's INSERT rows/s: ${verdict(searchable >= 0.33 * floorRate)} (${Math.round(searchable)} vs ${Math.round(floorRate)}, ${ratio(searchable)})`);
    }
  } finally {
    await meter?.stop();
    await system?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
