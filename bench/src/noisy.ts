/**
 * Noisy-neighbour benchmark: starts the whole system (--target=all) on a fresh PostgreSQL database with the search
 * response cache off (SEARCH_CACHE_TTL_MS=0, so every search reaches the engine), loads the generated catalogue for two
 * tenants through the batch upload endpoint, then measures tenant B's search latency with requests sent one after
 * another: alone, and again while tenant A floods search with `--concurrency` connections for `--flood-seconds`.
 * Prints B's p50/p95 both ways and the ratio of the two p50s, and what A got (requests per second, statuses).
 *
 *   node bench/dist/noisy.js [--records=20000] [--requests=200] [--flood-seconds=20] [--concurrency=64] [--ramp-seconds=1]
 *
 * Everything runs on loopback. Both tenants start on enterprise (the self-hosted default, 10,000 searches a minute),
 * so loading and waiting for the index are never limited; then A is set to pro with the `set-plan` command (300
 * search calls a minute, which the flood exceeds within its first second) and the bench waits until the gateway
 * applies it. Without per-tenant rate limits the flood takes the machine and B waits behind it; with them, A is held
 * at its plan's limit (429s) and B's p50 should stay within ×1.5 of its p50 alone.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { BRANDS, KINDS, SIZES, catalogue } from './catalogue';
import { HttpClient, latencyPass, throughputPass, type LatencyResult, type Op } from './load';
import { benchArgs } from './args';
import { startSystem } from './system';

const COLLECTION = 'catalogue';
const BATCH_SIZE = 10_000;
/**
 * How long the flood runs before B's measurement starts (default), so B meets a flood already at full strength. The
 * tenant limits are fixed one-minute windows, so A's allowance is served as a burst at the start of its window (300
 * searches, a second or two at 64 connections) and refused with 429 for the rest of the minute; `--ramp-seconds`
 * beyond that burst measures B beside a flood that is held, shorter ones beside the burst.
 */
const DEFAULT_RAMP_SECONDS = 1;
/** The flooding tenant's plan: 300 search calls a minute. */
const FLOODING_PLAN = 'pro';
const FLOODING_SEARCH_LIMIT = '300';

/** Keyword queries over the catalogue's vocabulary ("brass hex nut", "M8 washer", "Fischer anchor"). */
function keywordQueries(): string[] {
  const materials = ['steel', 'stainless', 'brass', 'aluminium', 'nylon', 'titanium'];
  const out: string[] = [];
  for (const k of KINDS) {
    for (const m of materials) out.push(`${m} ${k}`);
    for (const s of SIZES) out.push(`${s} ${k}`);
    for (const b of BRANDS) out.push(`${b} ${k}`);
  }
  return out;
}

/** Search bodies cycling through the queries, each round with another offset, starting at `start`. */
function searches(start: number): () => string {
  const queries = keywordQueries();
  let i = start;
  return () => {
    const query = queries[i % queries.length]!;
    const offset = Math.floor(i / queries.length) % 5;
    i++;
    return JSON.stringify({ query, limit: 20, offset });
  };
}

/** Counts answers by status; anything but 200 and 429 (a rate limit holding a tenant back) is an error. */
class Statuses {
  readonly counts = new Map<number, number>();
  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }
  get unexpected(): number {
    return [...this.counts].filter(([s]) => s !== 200 && s !== 429).reduce((a, [, n]) => a + n, 0);
  }
  toString(): string {
    return [...this.counts].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × HTTP ${s}`).join(', ') || 'none';
  }
}

function searchOp(client: HttpClient, key: string, body: string, statuses: Statuses): Op {
  return async () => {
    const reply = await client.post(`/api/v1/search/${COLLECTION}`, body, { authorization: `Bearer ${key}` });
    statuses.add(reply.status);
  };
}

async function createKey(base: string, tenant: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/auth/keys`, {
    method: 'POST',
    headers: { 'x-tenant-id': tenant, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['admin'] }),
  });
  if (!res.ok) throw new Error(`key creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** Uploads `count` catalogue records for a tenant in batches; `seed` makes the tenants' catalogues differ. */
async function load(client: HttpClient, key: string, count: number, seed: number): Promise<void> {
  for (let b = 0; b * BATCH_SIZE < count; b++) {
    const batch = [...catalogue(Math.min(BATCH_SIZE, count - b * BATCH_SIZE), seed + b, b * BATCH_SIZE)];
    const res = await client.post(`/api/v1/upload/${COLLECTION}/product/batch`, JSON.stringify({ records: batch }), { authorization: `Bearer ${key}` });
    if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
  }
}

/** Waits until an aggregate through the gateway counts `count` records for the tenant. */
async function searchable(client: HttpClient, key: string, count: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    const res = await client.post('/api/v1/aggregate', JSON.stringify({ collection: COLLECTION }), { authorization: `Bearer ${key}` });
    if (res.status !== 200) throw new Error(`aggregate answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
    const total = (JSON.parse(res.body.toString()) as { total: number }).total;
    if (total === count) return;
    if (performance.now() - started > 10 * 60_000) throw new Error(`not searchable after 10 minutes: ${total} of ${count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Sets the tenant's plan with the CLI an operator would use (self-hosted), against the system's database, and waits
 * until the gateway limits the tenant's searches by it (billing announces the change; the gateway applies it).
 */
async function setPlan(base: string, dbUrl: string, tenant: string, key: string): Promise<void> {
  const launcher = resolve(__dirname, '../../packages/launcher/dist/main.js');
  const run = spawnSync(process.execPath, [launcher, 'set-plan', '--tenant', tenant, '--plan', FLOODING_PLAN], {
    env: { ...process.env, ENV: 'development', LOG_LEVEL: 'warn', DATABASE_URL: dbUrl },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`set-plan failed (${run.status}): ${run.stderr}${run.stdout}`);
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${base}/api/v1/search/${COLLECTION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'steel nut', limit: 1 }),
    });
    await res.arrayBuffer();
    if (res.headers.get('x-ratelimit-limit') === FLOODING_SEARCH_LIMIT) return;
    if (performance.now() - started > 60_000) throw new Error(`the gateway did not apply plan ${FLOODING_PLAN} within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const f1 = (v: number) => (Number.isNaN(v) ? '—' : v < 10 ? v.toFixed(2) : v.toFixed(1));

async function main() {
  const args = benchArgs(
    { records: 20_000, requests: 200, 'flood-seconds': 20, concurrency: 64, 'max-latency-seconds': 30, 'ramp-seconds': DEFAULT_RAMP_SECONDS },
    ['keep-database'],
  );
  const { records: recordCount, requests, 'flood-seconds': floodSeconds, concurrency, 'max-latency-seconds': aloneSeconds, 'ramp-seconds': rampSeconds } = args;
  if (floodSeconds <= rampSeconds + 1) throw new Error(`--flood-seconds must be more than --ramp-seconds + 1 (${rampSeconds + 1})`);
  const loadBefore = loadavg();
  const startedAt = new Date();

  const system = await startSystem({ SEARCH_CACHE_TTL_MS: '0' }, args['keep-database']);
  try {
    const keyA = system.key;
    const keyB = await createKey(system.base, randomUUID());
    const loader = new HttpClient(system.base, 2);
    const t0 = performance.now();
    await load(loader, keyA, recordCount, 1_000);
    await load(loader, keyB, recordCount, 2_000);
    await searchable(loader, keyA, recordCount);
    await searchable(loader, keyB, recordCount);
    loader.close();
    console.error(`loaded ${recordCount} records for each tenant, searchable after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await setPlan(system.base, system.dbUrl, system.tenant, keyA);
    console.error(`tenant A is on ${FLOODING_PLAN} (${FLOODING_SEARCH_LIMIT} search calls a minute); tenant B on enterprise`);

    // What autovacuum would do after a bulk load (the local test server runs without it), as bench:search does.
    const maintenance = new pg.Client({ connectionString: system.dbUrl });
    await maintenance.connect();
    await maintenance.query('vacuum (analyze) search_engine.documents');
    await maintenance.end();

    const clientB = new HttpClient(system.base, 1);
    const clientA = new HttpClient(system.base, concurrency);
    const nextB = searches(0);
    const nextA = searches(7);

    // 1. B alone, after a warm-up.
    const warmup = new Statuses();
    for (let w = 0; w < 20; w++) await searchOp(clientB, keyB, nextB(), warmup)();
    const aloneStatuses = new Statuses();
    const alone = await latencyPass(() => searchOp(clientB, keyB, nextB(), aloneStatuses), requests, aloneSeconds);
    console.error(`B alone: p50 ${f1(alone.p50)} ms, p95 ${f1(alone.p95)} ms (${alone.n} requests)`);

    // 2. B while A floods: A keeps `concurrency` requests in flight for floodSeconds; B starts once the flood has
    // ramped up and stops sending when the flood is about to end.
    const floodStatuses = new Statuses();
    const flood = throughputPass(() => searchOp(clientA, keyA, nextA(), floodStatuses), concurrency, floodSeconds);
    await new Promise((r) => setTimeout(r, rampSeconds * 1000));
    const underStatuses = new Statuses();
    const under = await latencyPass(() => searchOp(clientB, keyB, nextB(), underStatuses), requests, floodSeconds - rampSeconds - 0.5);
    const floodResult = await flood;
    console.error(`B under flood: p50 ${f1(under.p50)} ms, p95 ${f1(under.p95)} ms (${under.n} requests); A: ${floodResult.rps.toFixed(0)} req/s`);
    clientA.close();
    clientB.close();

    const loadAfter = loadavg();
    const ratio = under.p50 / alone.p50;
    const row = (name: string, r: LatencyResult, statuses: Statuses) =>
      `| ${name} | ${r.n} | ${f1(r.p50)} | ${f1(r.p95)} | ${f1(r.p99)} | ${statuses} |`;
    console.log(
      `\nTrove noisy-neighbour benchmark, ${startedAt.toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, ` +
        `node ${process.version}; ${recordCount} records per tenant; search cache off; tenant A (${FLOODING_PLAN}, ${FLOODING_SEARCH_LIMIT} search calls a minute) ` +
        `floods with ${concurrency} connections for ${floodSeconds} s, B measured from ${rampSeconds} s into the flood, tenant B on enterprise; ` +
        `load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`,
    );
    console.log('| measurement | n | p50 ms | p95 ms | p99 ms | statuses |');
    console.log('|---|---:|---:|---:|---:|---|');
    console.log(row('tenant B alone, one request after another', alone, aloneStatuses));
    console.log(row(`tenant B while A floods`, under, underStatuses));
    console.log(
      `| tenant A flooding (${concurrency} in flight) | ${floodResult.n} | ${f1(floodResult.p50)} | — | — | ${floodStatuses}; ${floodResult.rps.toFixed(0)} req/s |`,
    );
    console.log(`\nB's p50 while A floods ÷ B's p50 alone: ×${ratio.toFixed(1)} (${f1(under.p50)} ms vs ${f1(alone.p50)} ms)`);
    console.log(`- target with per-tenant rate limits, A held at its plan's limit: < ×1.5: ${ratio < 1.5 ? 'met' : 'NOT met'}`);
    if (!floodStatuses.counts.has(429)) console.log('- A was never answered 429: nothing held the flooding tenant back');
    const unexpected = aloneStatuses.unexpected + underStatuses.unexpected + floodStatuses.unexpected + warmup.unexpected;
    if (unexpected > 0) console.log(`- ${unexpected} answers were neither 200 nor 429`);
  } finally {
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
