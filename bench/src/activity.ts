/**
 * Where a bench's PostgreSQL time goes, without pg_stat_statements (not loaded on these machines): samples
 * pg_stat_activity of the bench databases (`trove_bench_*`, bench/src/system.ts) every `--every` ms for `--seconds`,
 * then prints, per window of `--window` seconds, the statements by active backends on average (samples holding them /
 * samples taken), each with what it waited on (`cpu` when nothing). Run it beside a bench:
 *
 *   node bench/dist/activity.js --seconds=960 & node bench/dist/ingest.js --batches=100 --file-mb=0
 *
 * The bench's own backlog poll (ingest.ts's indexingDrained()) is left out.
 */
import pg from 'pg';
import { benchArgs } from './args';
import { SERVER_URL } from './system';

async function main() {
  const { seconds, every, window } = benchArgs({ seconds: 600, every: 100, window: 120 });
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  const windows = new Map<number, { samples: number; seen: Map<string, number> }>();
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    const { rows } = await client.query<{ q: string; w: string | null }>(
      `select left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as q, wait_event_type as w from pg_stat_activity
       where datname like 'trove_bench%' and state = 'active' and pid <> pg_backend_pid()
         and regexp_replace(query, '\\s+', ' ', 'g') not like 'select count(*)::int as n from records.indexing %'`,
    );
    const at = Math.floor((Date.now() - started) / (window * 1000));
    const held = windows.get(at) ?? { samples: 0, seen: new Map<string, number>() };
    windows.set(at, held);
    held.samples++;
    for (const r of rows) {
      const key = `${r.w ?? 'cpu'} | ${r.q.trim()}`;
      held.seen.set(key, (held.seen.get(key) ?? 0) + 1);
    }
    await new Promise((r) => setTimeout(r, every));
  }
  await client.end();
  for (const [at, { samples, seen }] of windows) {
    console.log(`\n${at * window}-${(at + 1) * window} s (${samples} samples): active backends on average`);
    for (const [key, n] of [...seen].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(n / samples).toFixed(2)}  ${key}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
