/**
 * Soak benchmark (bench/README.md): does search stay as fast under steady mixed load as when the load began, on a
 * collection whose size does not change? Starts the system (`--shape=embedded`, the default: PGlite in a fresh data
 * folder, as the README's first command; `server`: a fresh database of the PostgreSQL server), makes the collection
 * public, loads `--records` catalogue records (source ids 0 .. records-1) and waits until they are searchable, then
 * for `--minutes` keeps these workers busy, each sending one request after another:
 *
 * - two uploaders: batches of `--batch` records (200) whose source ids are drawn from the loaded ones, so every record
 *   of a batch is an upsert of a record already there (a new version; the collection keeps its size);
 * - a keyword search, a filtered search (keyword plus material and a price range) and an Open API search (at most
 *   one every 1.1 s, within the Open API's default allowance per client address);
 * - a PATCH of a record's collection_data and a visibility change (public ⇄ private) of a record, each on record ids
 *   the searches found.
 *
 * No maintenance by hand: the engine analyses its table, merges its GIN pending lists and (without an autovacuum, as
 * on PGlite) reclaims its dead rows itself. Prints, per minute and kind of request: requests, p50, p95 and errors;
 * then the target: the last minute's search p50 (keyword and filtered searches together) at most 1.2× the first
 * minute's, with no errors. `BENCH_JSON=file` writes every figure of the run.
 *
 *   node bench/dist/soak.js [--shape=embedded|server] [--minutes=8] [--records=20000] [--batch=200]
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { benchArgs } from './args';
import { BRANDS, KINDS, MATERIALS, SIZES, catalogue, mulberry32 } from './catalogue';
import { HttpClient, percentile, type Reply } from './load';
import { startSystem } from './system';

const COLLECTION = 'catalogue';
const LOAD_BATCH = 10_000;
const KINDS_OF_REQUEST = ['upload', 'search', 'filtered search', 'open search', 'patch', 'visibility'] as const;
type Kind = (typeof KINDS_OF_REQUEST)[number];
/** One Open API search at most this often: 55 a minute, within the default allowance of 60 per client address. */
const OPEN_SEARCH_EVERY_MS = 1_100;
/** The target: the last minute's search p50 at most this many times the first minute's. */
const GROWTH_BOUND = 1.2;

interface Sample {
  kind: Kind;
  /** Seconds since the load began, when the request was sent. */
  at: number;
  ms: number;
  status: number;
}

async function main() {
  const args = benchArgs({ minutes: 8, records: 20_000, batch: 200 }, [], { shape: ['embedded', 'server'] });
  const system = await startSystem({}, false, args.shape === 'embedded');
  const client = new HttpClient(system.base, 16);
  const auth = { authorization: `Bearer ${system.key}` };
  try {
    const visibility = await client.send('PATCH', `/api/v1/collections/${COLLECTION}/default-visibility`, JSON.stringify({ default_visibility: 'public' }), auth);
    if (visibility.status !== 200) throw new Error(`default visibility answered ${visibility.status}: ${visibility.body.toString()}`);
    const loaded = performance.now();
    for (let i = 0; i < args.records; i += LOAD_BATCH) {
      const records = [...catalogue(Math.min(LOAD_BATCH, args.records - i), 42, i)];
      const res = await client.post(`/api/v1/upload/${COLLECTION}/product/batch`, JSON.stringify({ records }), auth);
      if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
    }
    for (;;) {
      const res = await client.post('/api/v1/aggregate', JSON.stringify({ collection: COLLECTION }), auth);
      if (res.status === 200 && (JSON.parse(res.body.toString()) as { total: number }).total >= args.records) break;
      if (performance.now() - loaded > 15 * 60_000) throw new Error('the load was not searchable after 15 minutes');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.error(`${args.records} records searchable after ${((performance.now() - loaded) / 1000).toFixed(1)} s; soaking for ${args.minutes} minutes`);

    const samples: Sample[] = [];
    const started = performance.now();
    const deadline = started + args.minutes * 60_000;
    /** Record ids the searches found, for the patches and visibility changes. */
    const seen: string[] = [];
    const remember = (reply: Reply) => {
      if (reply.status !== 200) return;
      for (const r of (JSON.parse(reply.body.toString()) as { results?: Array<{ record_id: string }> }).results ?? []) {
        if (seen.length < 5_000) seen.push(r.record_id);
        else seen[Math.floor(Math.random() * seen.length)] = r.record_id;
      }
    };
    /** Sends one request after another (at most one every `everyMs`), timing each answer. */
    const worker = async (kind: Kind, seed: number, send: (rnd: () => number) => Promise<Reply | undefined>, everyMs = 0) => {
      const rnd = mulberry32(seed);
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const reply = await send(rnd).catch(() => ({ status: 0 }) as Reply);
        if (!reply) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        samples.push({ kind, at: (t0 - started) / 1000, ms: performance.now() - t0, status: reply.status });
        const wait = t0 + everyMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    };
    const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const query = (rnd: () => number) =>
      rnd() < 0.5 ? `${pick(rnd, ['steel', 'brass', 'nylon', 'titanium', 'aluminium'])} ${pick(rnd, KINDS)}` : `${pick(rnd, SIZES)} ${pick(rnd, KINDS)}`;
    let batchNo = 0;
    const upload = (rnd: () => number) => {
      const records = Array.from({ length: args.batch }, () => {
        const id = Math.floor(rnd() * args.records);
        return [...catalogue(1, 1_000 + batchNo * args.batch + id, id)][0]!;
      });
      batchNo++;
      return client.post(`/api/v1/upload/${COLLECTION}/product/batch`, JSON.stringify({ records }), auth);
    };
    await Promise.all([
      worker('upload', 1, upload),
      worker('upload', 2, upload),
      worker('search', 3, async (rnd) => {
        const reply = await client.post(`/api/v1/search/${COLLECTION}`, JSON.stringify({ query: query(rnd), limit: 20, offset: Math.floor(rnd() * 3) * 20 }), auth);
        remember(reply);
        return reply;
      }),
      worker('filtered search', 4, (rnd) => {
        const min = Math.round(rnd() * 50);
        const body = { query: query(rnd), filters: { material: pick(rnd, MATERIALS), price_min: min, price_max: min + 40 }, limit: 20 };
        return client.post(`/api/v1/search/${COLLECTION}`, JSON.stringify(body), auth);
      }),
      // Paced within the Open API's allowance of OPEN_SEARCH_LIMIT_PER_MINUTE (60) per client address.
      worker(
        'open search',
        5,
        (rnd) => client.send('GET', `/open/v1/search?q=${encodeURIComponent(`${pick(rnd, BRANDS)} ${pick(rnd, KINDS)}`)}&collection=${COLLECTION}`),
        OPEN_SEARCH_EVERY_MS,
      ),
      worker('patch', 6, async (rnd) => {
        const id = seen.length > 0 ? pick(rnd, seen) : undefined;
        if (!id) return undefined;
        const body = { collection_data: { price: Math.round(rnd() * 10_000) / 100, in_stock: rnd() > 0.2 } };
        return client.send('PATCH', `/api/v1/records/${id}`, JSON.stringify(body), auth);
      }),
      worker('visibility', 7, async (rnd) => {
        const id = seen.length > 0 ? pick(rnd, seen) : undefined;
        if (!id) return undefined;
        return client.send('PATCH', `/api/v1/records/${id}/visibility`, JSON.stringify({ visibility: rnd() < 0.5 ? 'private' : 'public' }), auth);
      }),
    ]);

    // Per minute and kind: requests, p50, p95, errors (every answer but a 2xx).
    const minutes = Math.ceil(args.minutes);
    const table: Array<Record<string, unknown>> = [];
    console.log(`\nTrove soak benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model.split(' ')[0] ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, node ${process.version}; ${args.shape}; ${args.records} records; batches of ${args.batch}; load average ${loadavg()[0]!.toFixed(2)} at the end\n`);
    console.log('| minute | kind | requests | p50 ms | p95 ms | errors |');
    console.log('|---|---|---|---|---|---|');
    const searchP50 = (m: number) => {
      const ms = samples.filter((s) => (s.kind === 'search' || s.kind === 'filtered search') && Math.floor(s.at / 60) === m).map((s) => s.ms).sort((a, b) => a - b);
      return percentile(ms, 50);
    };
    for (let m = 0; m < minutes; m++) {
      for (const kind of KINDS_OF_REQUEST) {
        const of = samples.filter((s) => s.kind === kind && Math.floor(s.at / 60) === m);
        const ms = of.map((s) => s.ms).sort((a, b) => a - b);
        const errors = of.filter((s) => s.status < 200 || s.status > 299).length;
        const row = { minute: m + 1, kind, requests: of.length, p50: percentile(ms, 50), p95: percentile(ms, 95), errors };
        table.push(row);
        console.log(`| ${row.minute} | ${kind} | ${row.requests} | ${row.p50.toFixed(1)} | ${row.p95.toFixed(1)} | ${errors} |`);
      }
    }
    const errors = samples.filter((s) => s.status < 200 || s.status > 299);
    const statuses = [...new Set(errors.map((s) => `${s.kind} ${s.status}`))];
    const first = searchP50(0);
    const last = searchP50(minutes - 1);
    console.log(`\n${samples.length} requests, ${errors.length} errors${statuses.length ? ` (${statuses.join(', ')})` : ''}`);
    console.log(
      `- search p50 in the last minute at most ${GROWTH_BOUND}× the first minute's: ${last <= GROWTH_BOUND * first ? 'met' : 'NOT met'} (${last.toFixed(1)} vs ${first.toFixed(1)} ms, ${(last / first).toFixed(2)}×)`,
    );
    console.log(`- no errors: ${errors.length === 0 ? 'met' : 'NOT met'} (${errors.length})`);
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ args, requests: samples.length, errors: errors.length, first, last, table }, null, 2));
  } finally {
    client.close();
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
