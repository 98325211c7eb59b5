/**
 * The scale curve (issue 32): bench:search at 10,000, 100,000 and 1,000,000 records on the PostgreSQL server, one run
 * after another, each a fresh system and database (search.ts, its whole table printed as it runs), then one table of
 * how ingest, every search workload and the footprint grow with the collection, against the targets:
 *
 * - ingest-to-searchable at the largest size within 20 % of that at 100,000 (records per second);
 * - no search workload's p50 through the gateway growing more than 3× from 100,000 to the largest size (the floor's
 *   own growth beside it);
 * - disk and memory per record: at each size, and per record added from one size to the next.
 *
 *   node bench/dist/scale.js [--largest=1000000] [--requests=300] [--seconds=5]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs } from './args';
import { f1 } from './load';
import { mb } from './proc';

/** What search.ts writes to BENCH_JSON. */
interface Run {
  records: number;
  results: Record<string, { p50?: number; p99?: number; rps?: number }>;
  ingest: { searchable: number; floor: number };
  footprint: { disk: number; rss: number; peak: number };
  estimates: { counted: number; estimated: number; within: number; errors: number[] };
}

const WORKLOADS = ['keyword', 'natural-language', 'identifier (EAN/SKU)', 'identifier (standard)', 'filtered', 'aggregate'] as const;

const x = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

function main() {
  const { largest, requests, seconds } = benchArgs({ largest: 1_000_000, requests: 300, seconds: 5 });
  const sizes = [10_000, 100_000, largest];
  const dir = mkdtempSync(join(tmpdir(), 'trove-scale-'));
  const runs: Run[] = [];
  try {
    for (const records of sizes) {
      const file = join(dir, `${records}.json`);
      console.log(`\n## bench:search at ${records} records\n`);
      // A million records and their request bodies are held in the bench process: more heap than node's default.
      const run = spawnSync(
        process.execPath,
        ['--max-old-space-size=8192', resolve(__dirname, 'search.js'), `--records=${records}`, `--requests=${requests}`, `--seconds=${seconds}`],
        { stdio: 'inherit', env: { ...process.env, BENCH_JSON: file } },
      );
      if (run.status !== 0) throw new Error(`bench:search at ${records} records exited with ${run.status ?? run.signal}`);
      runs.push(JSON.parse(readFileSync(file, 'utf8')) as Run);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report(runs);
}

function report(runs: Run[]): void {
  const [, mid, top] = runs as [Run, Run, Run];
  const heads = runs.map((r) => r.records.toLocaleString('en'));
  console.log(`\nThe scale curve: ${heads.join(', ')} records on the PostgreSQL server (one run each, above)`);
  console.log(`| measurement | ${heads.join(' | ')} | growth ${heads[1]} → ${heads[2]} |`);
  console.log(`|---|${runs.map(() => '---:|').join('')}---:|`);
  const line = (name: string, values: Array<number | undefined>, unit: string) =>
    console.log(`| ${name} | ${values.map((v) => `${f1(v)}${unit}`).join(' | ')} | ${x(values[2], values[1])} |`);
  line('ingest-to-searchable, records/s', runs.map((r) => r.ingest.searchable), '');
  line('floor INSERT, rows/s', runs.map((r) => r.ingest.floor), '');
  for (const w of WORKLOADS) {
    line(`${w} p50, gateway`, runs.map((r) => r.results[`${w}, uncached`]?.p50), ' ms');
    line(`${w} p50, floor`, runs.map((r) => r.results[`${w}, floor`]?.p50), ' ms');
  }
  const perRecord = (pick: (r: Run) => number) => runs.map((r) => pick(r) / r.records);
  line('disk per record, bytes', perRecord((r) => r.footprint.disk), '');
  line('system RSS per record, bytes', perRecord((r) => r.footprint.rss), '');
  console.log(`| disk | ${runs.map((r) => mb(r.footprint.disk)).join(' | ')} | |`);
  console.log(`| system RSS (peak) | ${runs.map((r) => `${mb(r.footprint.rss)} (${mb(r.footprint.peak)})`).join(' | ')} | |`);
  const added = (pick: (r: Run) => number, a: Run, b: Run) => (pick(b) - pick(a)) / (b.records - a.records);
  console.log(
    `\nPer record added from ${heads[1]} to ${heads[2]}: disk ${f1(added((r) => r.footprint.disk, mid, top))} bytes, ` +
      `system RSS ${f1(added((r) => r.footprint.rss, mid, top))} bytes`,
  );
  for (const r of runs) {
    const e = r.estimates;
    const range = e.errors.length ? `${(100 * Math.min(...e.errors)).toFixed(1)} % to ${(100 * Math.max(...e.errors)).toFixed(1)} %` : 'none';
    console.log(`Estimated totals at ${r.records.toLocaleString('en')}: ${e.within} of ${e.estimated} within 10 % (${range}), of ${e.counted} requests`);
  }

  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('\nAgainst issue 32\'s scale targets:');
  const ingest = top.ingest.searchable / mid.ingest.searchable;
  console.log(`- ingest at ${heads[2]} within 20 % of that at ${heads[1]}: ${verdict(ingest >= 0.8)} (${f1(top.ingest.searchable)} vs ${f1(mid.ingest.searchable)} records/s, ${ingest.toFixed(2)}×)`);
  for (const w of WORKLOADS) {
    const [a, b] = [mid.results[`${w}, uncached`]?.p50, top.results[`${w}, uncached`]?.p50];
    const [fa, fb] = [mid.results[`${w}, floor`]?.p50, top.results[`${w}, floor`]?.p50];
    if (a === undefined || b === undefined) continue;
    console.log(`- ${w} p50 growing at most 3× from ${heads[1]} to ${heads[2]}: ${verdict(b <= 3 * a)} (${f1(a)} → ${f1(b)} ms, ${x(b, a)}; the floor ${x(fb, fa)})`);
  }
}

main();
