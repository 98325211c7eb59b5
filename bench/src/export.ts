/**
 * Export benchmark: starts the whole system (--target=all) on a fresh PostgreSQL database, loads the generated
 * catalogue through the gateway (batch uploads of 10,000), waits until search has indexed it (so indexing does not
 * run beside the export), then exports the collection as CSV and as JSON. For each format it reports how long the job
 * took from POST /export to completed, records per second, and how much the system process's memory grew: its
 * VmRSS sampled every 50 ms from /proc/<pid>/status during the job and during the download (read through the gateway
 * and counted, never held), against the VmRSS just before the export started; and the peak (VmHWM, reset before
 * the export when the kernel allows it). Target: growth under 100 MB at 100,000 records.
 *
 *   node bench/dist/export.js [--records=100000]
 *
 * BENCH_KEEP_DATABASE=1 leaves the database in place afterwards; system.ts lists the other BENCH_* options.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { benchArgs } from './args';
import { catalogue } from './catalogue';
import { mb, procStatus, resetPeak } from './proc';
import { startSystem, type RunningSystem } from './system';

const COLLECTION = 'catalogue';
const BATCH_SIZE = 10_000;
const SAMPLE_MS = 50;


/** The highest VmRSS of `pid` seen while `work` runs, sampled every SAMPLE_MS. */
async function sampledPeak<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = procStatus(pid, 'VmRSS');
  const timer = setInterval(() => (peak = Math.max(peak, procStatus(pid, 'VmRSS'))), SAMPLE_MS);
  try {
    const result = await work();
    peak = Math.max(peak, procStatus(pid, 'VmRSS'));
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

async function indexingDrained(db: pg.Client, tenant: string): Promise<void> {
  for (;;) {
    const { rows } = await db.query(`select count(*)::int as n from records.indexing where tenant_id = $1 and status in ('pending', 'processing')`, [tenant]);
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Row {
  format: string;
  records: number;
  seconds: number;
  bytes: number;
  downloadSeconds: number;
  baseline: number;
  jobPeak: number;
  downloadPeak: number;
  hwm?: number;
}

async function runExport(system: RunningSystem, format: 'csv' | 'json', expected: number): Promise<Row> {
  const { child, base, key } = system;
  const auth = { authorization: `Bearer ${key}` };
  const pid = child.pid!;
  const baseline = procStatus(pid, 'VmRSS');
  const peakReset = resetPeak(pid);
  const t0 = performance.now();
  const job = await sampledPeak(pid, async () => {
    const start = await fetch(`${base}/api/v1/export?collection=${COLLECTION}&format=${format}`, { method: 'POST', headers: auth });
    const started = (await start.json()) as { export_id: string };
    if (start.status !== 202) throw new Error(`POST /export answered ${start.status}: ${JSON.stringify(started)}`);
    for (;;) {
      const res = await fetch(`${base}/api/v1/export/${started.export_id}/status`, { headers: auth });
      const status = (await res.json()) as { status: string; progress: number; total: number };
      if (status.status === 'completed') return { id: started.export_id, ...status };
      if (status.status !== 'processing') throw new Error(`export ${format} ended ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  if (job.result.progress !== expected || job.result.total !== expected) throw new Error(`export ${format}: ${JSON.stringify(job.result)}, expected ${expected}`);

  const t1 = performance.now();
  const download = await sampledPeak(pid, async () => {
    const res = await fetch(`${base}/api/v1/export/${job.result.id}/download`, { headers: auth });
    if (res.status !== 200 || !res.body) throw new Error(`download answered ${res.status}`);
    const declared = Number(res.headers.get('content-length'));
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    if (bytes !== declared) throw new Error(`download of ${bytes} bytes, content-length ${declared}`);
    // CSV: a header and a line per record (the catalogue has no line breaks in its values). JSON: the array's two
    // bracket lines and a line per record.
    const records = format === 'csv' ? lines - 1 : lines - 2;
    if (records !== expected) throw new Error(`download of ${format} holds ${records} records, expected ${expected}`);
    return bytes;
  });
  return {
    format,
    records: expected,
    seconds,
    bytes: download.result,
    downloadSeconds: (performance.now() - t1) / 1000,
    baseline,
    jobPeak: job.peak,
    downloadPeak: download.peak,
    hwm: peakReset ? procStatus(pid, 'VmHWM') : undefined,
  };
}

async function main() {
  const { records } = benchArgs({ records: 100_000 });
  let system: RunningSystem | undefined;
  try {
    system = await startSystem(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}, Boolean(process.env.BENCH_KEEP_DATABASE));
    const { base, dbUrl, tenant, key } = system;
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const t0 = performance.now();
    for (let from = 0; from < records; from += BATCH_SIZE) {
      const body = JSON.stringify({ records: [...catalogue(Math.min(BATCH_SIZE, records - from), 1000 + from / BATCH_SIZE, from)] });
      const res = await fetch(`${base}/api/v1/upload/${COLLECTION}/product/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    }
    await indexingDrained(db, tenant);
    await db.end();
    console.error(`loaded and indexed ${records} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const rows: Row[] = [];
    for (const format of ['csv', 'json'] as const) rows.push(await runExport(system, format, records));

    console.log(`\nTrove export benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${mb(totalmem())} RAM, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log('\n| format | records | job seconds | records/s | file | download seconds | RSS before | RSS growth during job (peak sampled) | RSS growth during download | peak RSS (VmHWM) growth |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| ${r.format} | ${r.records} | ${r.seconds.toFixed(2)} | ${(r.records / r.seconds).toFixed(0)} | ${mb(r.bytes)} | ${r.downloadSeconds.toFixed(2)} | ${mb(r.baseline)} | ${mb(r.jobPeak - r.baseline)} | ${mb(r.downloadPeak - r.baseline)} | ${r.hwm === undefined ? 'not measurable' : mb(r.hwm - r.baseline)} |`,
      );
    }
  } finally {
    await system?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
