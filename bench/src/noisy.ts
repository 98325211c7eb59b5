/**
 * Noisy-neighbour benchmark (one tenant must not slow another, in every shape; bench/README.md). Starts the system with
 * the search response cache off (SEARCH_CACHE_TTL_MS=0, so every search reaches the engine), loads `--records`
 * generated catalogue records for each of two tenants through the batch upload endpoint and waits until both are
 * searchable, then measures tenant B against its own baseline in the same run, in this order:
 *
 * 1. B alone (after a warm-up): `--requests` of B's operations one after another;
 * 2. B while A floods: A floods for `--flood-seconds`; B starts `--ramp-seconds` into the flood (once it has ramped)
 *    and sends one operation after another until a second before the flood ends;
 * 3. B after the flood: right after A's last request was answered, as many operations as B sent alone.
 *
 * Scenarios (`--scenario`):
 * - `search` (default): A sends uncached keyword searches on `--concurrency` connections (64); B's operation is one
 *   keyword search.
 * - `upload`: A uploads a generated catalogue CSV of `--upload-mb` MB (10; generated once, sent as the multipart `file`
 *   of /api/v1/upload/catalogue/product/upload) on `--upload-concurrency` connections (8); B's operation is a batch
 *   upload of 100 new records (/batch) followed by a search, each timed on its own. Before the flood (after B alone),
 *   one upload of A's is timed alone: a 10 MB upload takes seconds by itself.
 *
 * Shapes (`--shape`):
 * - `server` (default): `--target=all` in one process on a fresh database of the PostgreSQL server (BENCH_DATABASE_URL);
 * - `embedded`: `--target=all` on PGlite in a fresh data folder (the README's first command), no VACUUM by the bench;
 * - `apart`: a process per service (gateway, auth, records, ingestion, search, open, billing, connector, mcp) on one fresh
 *   database of the PostgreSQL server, with Redis (REDIS_URL, default redis://127.0.0.1:6379) for the shared cache and
 *   counters. Redis is not flushed: the services' cache keys have the prefix `trove:` (REDIS_KEY_PREFIX) and each
 *   run's tenants are new, so runs do not meet in it.
 * No shape gets maintenance by hand: the engine analyses its table, merges its GIN pending lists and (without an
 * autovacuum) reclaims its dead rows itself, soon after writes pause.
 *
 * Plans (`--plan`): `enterprise` (default) leaves both tenants on the self-hosted default plan and turns the per-minute
 * limits off (TENANT_RATE_LIMITS=false: an unlimited tenant, held back by nothing but fair scheduling); `pro` sets A
 * to pro (300 searches a minute) with the operator's `set-plan` command first, the bench's earlier scenario
 * (PostgreSQL shapes only).
 *
 *   node bench/dist/noisy.js [--scenario=search|upload] [--shape=server|embedded|apart] [--plan=enterprise|pro]
 *     [--records=5000] [--requests=200] [--flood-seconds=40] [--concurrency=64] [--upload-concurrency=8]
 *     [--upload-mb=10] [--ramp-seconds=2] [--max-latency-seconds=60] [--keep-database]
 *
 * Prints, for B in each phase (and each of B's operations): n, p50, p95, p99, max and statuses; for A: requests,
 * answers a second, p50, p95, p99 and max latency, statuses, refusals (429 or 503) and how many of them came without a
 * Retry-After header. Then the targets, each against B's own baseline in this run, met or not:
 * - B's p50 while A floods at most 2× B's p50 alone, and B's p99 at most 3× (upload: for B's uploads and searches each);
 * - no request of A's waits longer than 10 s for its answer (A's max latency; upload: printed beside one upload alone);
 * - every refusal (A's and B's) carries Retry-After;
 * - back to baseline after the flood: B's p50 at most 1.5× and p99 at most 3× B's alone.
 * `BENCH_JSON=file` writes every figure of the run (for tabulating runs).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { BRANDS, KINDS, SIZES, catalogue, csvHeader, csvLine } from './catalogue';
import { f1, HttpClient, percentile, type Reply } from './load';
import { benchArgs } from './args';
import { PROCESS_PER_SERVICE, startSystem } from './system';

const COLLECTION = 'catalogue';
const BATCH_SIZE = 10_000;
/** B's batch uploads in the upload scenario. */
const B_BATCH = 100;
const WARMUP = 20;
/** The flooding tenant's plan with --plan=pro: 300 search calls a minute. */
const FLOODING_PLAN = 'pro';
const FLOODING_SEARCH_LIMIT = '300';

/** The targets (listed above), each a ratio to B's own figures alone in the same run (and A's longest wait). */
const TARGETS = { floodP50: 2, floodP99: 3, afterP50: 1.5, afterP99: 3, maxWaitSeconds: 10 };

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

/** Batch bodies of B_BATCH new catalogue records each (new source ids every batch). */
function batches(): () => string {
  let i = 0;
  return () => {
    const records = [...catalogue(B_BATCH, 3_000 + i, 1_000_000 + i * B_BATCH)];
    i++;
    return JSON.stringify({ records });
  };
}

/**
 * Answers by status: a refusal is a 429 or a 503 (a limit or the scheduler holding a request back), and should carry
 * Retry-After; anything else but 2xx is unexpected. Status 0 counts a request that failed without an answer.
 */
class Statuses {
  readonly counts = new Map<number, number>();
  refusals = 0;
  refusalsWithoutRetryAfter = 0;
  add(reply: Reply): void {
    this.counts.set(reply.status, (this.counts.get(reply.status) ?? 0) + 1);
    if (reply.status === 429 || reply.status === 503) {
      this.refusals++;
      if (reply.headers['retry-after'] === undefined) this.refusalsWithoutRetryAfter++;
    }
  }
  get unexpected(): number {
    return [...this.counts].filter(([s]) => (s < 200 || s > 299) && s !== 429 && s !== 503).reduce((a, [, n]) => a + n, 0);
  }
  toString(): string {
    return (
      [...this.counts]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => (s === 0 ? `${n} × no answer` : `${n} × HTTP ${s}`))
        .join(', ') || 'none'
    );
  }
  toJSON() {
    return {
      counts: Object.fromEntries([...this.counts].sort(([a], [b]) => a - b)),
      refusals: this.refusals,
      refusals_without_retry_after: this.refusalsWithoutRetryAfter,
      unexpected: this.unexpected,
    };
  }
}

/** One kind of request of one tenant in one phase: every latency (ms) and every status. */
class Series {
  readonly ms: number[] = [];
  readonly statuses = new Statuses();
  constructor(readonly name: string) {}

  /** Sends one request, timing it to its complete answer; a request failing without an answer counts as status 0. */
  async time(send: () => Promise<Reply>): Promise<void> {
    const t0 = performance.now();
    let reply: Reply;
    try {
      reply = await send();
    } catch {
      reply = { status: 0, headers: {}, body: Buffer.alloc(0) };
    }
    this.ms.push(performance.now() - t0);
    this.statuses.add(reply);
  }

  summary() {
    const sorted = [...this.ms].sort((a, b) => a - b);
    return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
  }
}

type Summary = ReturnType<Series['summary']>;

/** B's operation: the requests it sends one after another, each into its series. */
type Step = (series: Series[]) => Promise<void>;

/** Runs B's operation `n` times one after another, or until `until` (a performance.now() time) has passed. */
async function sequential(names: string[], step: Step, n: number, until: number): Promise<Series[]> {
  const series = names.map((name) => new Series(name));
  for (let i = 0; i < n && performance.now() < until; i++) await step(series);
  return series;
}

/** A's flood: `connections` requests in flight until `seconds` have passed; ends when the last one is answered. */
async function flood(send: () => Promise<Reply>, connections: number, seconds: number): Promise<{ series: Series; seconds: number }> {
  const series = new Series('A');
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) await series.time(send);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { series, seconds: (performance.now() - started) / 1000 };
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
 * A generated catalogue CSV of about `megabytes` MB (records after the loaded ones, so an upload adds records the first
 * time and replaces the same ones after), as a multipart/form-data body with one part, `file`.
 */
function csvUpload(megabytes: number): { body: Buffer; contentType: string; records: number } {
  const boundary = `----trove-bench-${randomBytes(12).toString('hex')}`;
  const target = megabytes * 1024 * 1024;
  const lines = [csvHeader()];
  let size = Buffer.byteLength(lines[0]!);
  let records = 0;
  for (const r of catalogue(10_000_000, 4_000, 2_000_000)) {
    const line = csvLine(r);
    size += Buffer.byteLength(line);
    if (size > target) break;
    lines.push(line);
    records++;
  }
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="catalogue.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), Buffer.from(lines.join('')), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, records };
}

/**
 * Sets the tenant's plan with the CLI an operator would use (self-hosted), against the system's database, and waits
 * until the gateway limits the tenant's searches by it (billing announces the change; the gateway applies it).
 */
async function setPlan(base: string, dbUrl: string, tenant: string, key: string): Promise<void> {
  const launcher = resolve(__dirname, '../../apps/trove/dist/main.js');
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const args = benchArgs(
    {
      records: 5_000,
      requests: 200,
      'flood-seconds': 40,
      concurrency: 64,
      'upload-concurrency': 8,
      'upload-mb': 10,
      'ramp-seconds': 2,
      'max-latency-seconds': 60,
    },
    ['keep-database'],
    { scenario: ['search', 'upload'], shape: ['server', 'embedded', 'apart'], plan: ['enterprise', 'pro'] } as const,
  );
  const { records: recordCount, requests, 'flood-seconds': floodSeconds, 'ramp-seconds': rampSeconds, 'max-latency-seconds': aloneSeconds } = args;
  const { scenario, shape, plan } = args;
  const connections = scenario === 'search' ? args.concurrency : args['upload-concurrency'];
  if (floodSeconds < rampSeconds + 2) throw new Error(`--flood-seconds must be at least --ramp-seconds + 2 (${rampSeconds + 2})`);
  if (plan === 'pro' && shape === 'embedded') throw new Error('--plan=pro sets the plan in the system database with set-plan: a PostgreSQL shape only');
  const loadBefore = loadavg();
  const startedAt = new Date();

  const upload = scenario === 'upload' ? csvUpload(args['upload-mb']) : undefined;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const system = await startSystem(
    {
      SEARCH_CACHE_TTL_MS: '0',
      // An unlimited plan: no per-minute limit at all, so only fair scheduling stands between the tenants.
      ...(plan === 'enterprise' ? { TENANT_RATE_LIMITS: 'false' } : {}),
      ...(shape === 'apart' ? { REDIS_URL: redisUrl } : {}),
    },
    args['keep-database'],
    shape === 'embedded',
    shape === 'apart' ? PROCESS_PER_SERVICE : undefined,
  );
  try {
    const keyA = system.key;
    const keyB = await createKey(system.base, randomUUID());
    const authA = { authorization: `Bearer ${keyA}` };
    const authB = { authorization: `Bearer ${keyB}` };
    const loader = new HttpClient(system.base, 2);
    const t0 = performance.now();
    await load(loader, keyA, recordCount, 1_000);
    await load(loader, keyB, recordCount, 2_000);
    await searchable(loader, keyA, recordCount);
    await searchable(loader, keyB, recordCount);
    loader.close();
    const loadSeconds = (performance.now() - t0) / 1000;
    console.error(`loaded ${recordCount} records for each tenant, searchable after ${loadSeconds.toFixed(1)} s`);
    if (plan === 'pro') {
      await setPlan(system.base, system.dbUrl, system.tenant, keyA);
      console.error(`tenant A is on ${FLOODING_PLAN} (${FLOODING_SEARCH_LIMIT} search calls a minute); tenant B on enterprise`);
    }

    // No maintenance by hand: the engine maintains its table itself (packages/search-engine/src/postgres/maintenance.ts).
    const vacuumed = 'no manual maintenance (the engine maintains its table)';

    const clientB = new HttpClient(system.base, 1);
    const clientA = new HttpClient(system.base, connections);
    const nextSearchB = searches(0);
    const nextSearchA = searches(7);
    const nextBatchB = batches();
    const searchB = (s: Series) => s.time(() => clientB.post(`/api/v1/search/${COLLECTION}`, nextSearchB(), authB));
    const bNames = scenario === 'search' ? ['search'] : ['batch upload', 'search'];
    const stepB: Step =
      scenario === 'search'
        ? ([search]) => searchB(search!)
        : async ([batch, search]) => {
            await batch!.time(() => clientB.post(`/api/v1/upload/${COLLECTION}/product/batch`, nextBatchB(), authB));
            await searchB(search!);
          };
    const sendA: () => Promise<Reply> = upload
      ? () => clientA.post(`/api/v1/upload/${COLLECTION}/product/upload`, upload.body, { ...authA, 'content-type': upload.contentType })
      : () => clientA.post(`/api/v1/search/${COLLECTION}`, nextSearchA(), authA);

    // 1. B alone, after a warm-up.
    const warmup = await sequential(bNames, stepB, WARMUP, Infinity);
    const alone = await sequential(bNames, stepB, requests, performance.now() + aloneSeconds * 1000);
    const aloneCount = alone[0]!.ms.length;
    console.error(`B alone: ${alone.map((s) => `${s.name} p50 ${f1(s.summary().p50)} ms`).join(', ')} (${aloneCount} operations)`);

    // Upload: one of A's uploads alone, what its uploads under the flood compare with.
    let aAlone: Series | undefined;
    if (upload) {
      aAlone = new Series('A alone');
      await aAlone.time(sendA);
      console.error(`A's upload alone (${(upload.body.length / 2 ** 20).toFixed(1)} MB, ${upload.records} records): ${f1(aAlone.ms[0]! / 1000)} s, HTTP ${[...aAlone.statuses.counts.keys()].join()}`);
    }

    // 2. B while A floods: B starts once the flood has ramped and stops sending a second before the flood ends.
    const floodStarted = performance.now();
    const flooding = flood(sendA, connections, floodSeconds);
    await sleep(rampSeconds * 1000);
    const under = await sequential(bNames, stepB, Infinity, floodStarted + (floodSeconds - 1) * 1000);
    const a = await flooding;
    console.error(`B while A floods: ${under.map((s) => `${s.name} p50 ${f1(s.summary().p50)} ms`).join(', ')}; A: ${(a.series.ms.length / a.seconds).toFixed(1)} answers/s`);

    // 3. B right after the flood: as many operations as alone.
    const after = await sequential(bNames, stepB, aloneCount, performance.now() + 3 * aloneSeconds * 1000);
    clientA.close();
    clientB.close();
    const loadAfter = loadavg();

    // The printed run.
    const what = upload
      ? `tenant A uploads ${(upload.body.length / 2 ** 20).toFixed(1)} MB CSV files (${upload.records} records each) on ${connections} connections; ` +
        `tenant B alternates a batch upload of ${B_BATCH} records and a keyword search`
      : `tenant A sends uncached keyword searches on ${connections} connections; tenant B keyword searches one after another`;
    const shapeName = { server: '--target=all on the PostgreSQL server', embedded: '--target=all embedded (PGlite)', apart: 'a process per service on the PostgreSQL server, Redis' }[shape];
    console.log(
      `\nTrove noisy-neighbour benchmark, scenario ${scenario}, shape ${shape} (${shapeName}), ${startedAt.toISOString()}, ` +
        `${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, node ${process.version}; ${recordCount} records per tenant, ` +
        `search cache off; ${what}; flood ${floodSeconds} s (ended after ${a.seconds.toFixed(1)} s), B measured from ${rampSeconds} s into it; ` +
        `A on ${plan === 'pro' ? `${FLOODING_PLAN} (${FLOODING_SEARCH_LIMIT} search calls a minute)` : 'enterprise'}, B on enterprise; ${vacuumed}; ` +
        `load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`,
    );
    const row = (name: string, s: Summary, statuses: Statuses, note = '') =>
      `| ${name} | ${s.n} | ${f1(s.p50)} | ${f1(s.p95)} | ${f1(s.p99)} | ${f1(s.max)} | ${statuses}${note} |`;
    console.log('| measurement | n | p50 ms | p95 ms | p99 ms | max ms | statuses |');
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const [i, name] of bNames.entries()) {
      console.log(row(`B ${name} alone`, alone[i]!.summary(), alone[i]!.statuses));
      console.log(row(`B ${name} while A floods`, under[i]!.summary(), under[i]!.statuses));
      console.log(row(`B ${name} after the flood`, after[i]!.summary(), after[i]!.statuses));
    }
    if (aAlone) console.log(row('A one upload alone', aAlone.summary(), aAlone.statuses));
    const aSummary = a.series.summary();
    const aRefusals = a.series.statuses;
    console.log(
      row(
        `A flooding (${connections} connections, ${upload ? 'uploads' : 'searches'})`,
        aSummary,
        aRefusals,
        `; ${(aSummary.n / a.seconds).toFixed(1)} answers/s; ${aRefusals.refusals} refusals (429/503), ${aRefusals.refusalsWithoutRetryAfter} without Retry-After`,
      ),
    );

    // Targets, against B's own baseline in this run.
    const targets: { target: string; value: string; met: boolean }[] = [];
    const ratio = (name: string, phase: string, p: 'p50' | 'p99', limit: number, s: Summary, base: Summary) => {
      const r = s[p] / base[p];
      targets.push({ target: `B's ${name} ${p} ${phase} at most ${limit}× alone`, value: `${r.toFixed(2)}× (${f1(s[p])} ms vs ${f1(base[p])} ms)`, met: r <= limit });
    };
    for (const [i, name] of bNames.entries()) {
      ratio(name, 'while A floods', 'p50', TARGETS.floodP50, under[i]!.summary(), alone[i]!.summary());
      ratio(name, 'while A floods', 'p99', TARGETS.floodP99, under[i]!.summary(), alone[i]!.summary());
    }
    const aMax = aSummary.max / 1000;
    targets.push({
      target: `no request of A's waits longer than ${TARGETS.maxWaitSeconds} s (A's max latency)`,
      value: `${f1(aMax)} s` + (aAlone ? ` (one upload alone: ${f1(aAlone.ms[0]! / 1000)} s, ×${(aMax / (aAlone.ms[0]! / 1000)).toFixed(1)})` : ''),
      met: aMax <= TARGETS.maxWaitSeconds,
    });
    const allStatuses = [a.series, ...(aAlone ? [aAlone] : []), ...warmup, ...alone, ...under, ...after].map((s) => s.statuses);
    const refusals = allStatuses.reduce((n, s) => n + s.refusals, 0);
    const bare = allStatuses.reduce((n, s) => n + s.refusalsWithoutRetryAfter, 0);
    targets.push({ target: 'every refusal (429/503, A and B) carries Retry-After', value: `${refusals} refusals, ${bare} without`, met: bare === 0 });
    for (const [i, name] of bNames.entries()) {
      ratio(name, 'after the flood', 'p50', TARGETS.afterP50, after[i]!.summary(), alone[i]!.summary());
      ratio(name, 'after the flood', 'p99', TARGETS.afterP99, after[i]!.summary(), alone[i]!.summary());
    }
    console.log("\nThe targets of bench/README.md (against B's own figures alone in this run):");
    for (const t of targets) console.log(`- ${t.target}: ${t.value}: ${t.met ? 'met' : 'NOT met'}`);
    const bRefused = [...alone, ...under, ...after].reduce((n, s) => n + s.statuses.refusals, 0);
    if (bRefused > 0) console.log(`- note: B was refused ${bRefused} times (its latencies include those quick answers)`);
    const unexpected = allStatuses.reduce((n, s) => n + s.unexpected, 0);
    if (unexpected > 0) console.log(`- note: ${unexpected} answers were neither 2xx nor a refusal (429/503)`);

    if (process.env.BENCH_JSON) {
      const phase = (series: Series[]) => Object.fromEntries(series.map((s) => [s.name, { ...s.summary(), statuses: s.statuses.toJSON() }]));
      writeFileSync(
        process.env.BENCH_JSON,
        JSON.stringify(
          {
            bench: 'noisy',
            started_at: startedAt.toISOString(),
            machine: { cpus: cpus().length, model: cpus()[0]?.model, ram_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
            load_average: { before: loadBefore[0], after: loadAfter[0] },
            options: { scenario, shape, plan, records: recordCount, requests, flood_seconds: floodSeconds, ramp_seconds: rampSeconds, connections, upload_mb: upload ? args['upload-mb'] : null },
            upload: upload ? { bytes: upload.body.length, records: upload.records } : null,
            load_seconds: loadSeconds,
            vacuumed,
            b: { warmup: phase(warmup), alone: phase(alone), flood: phase(under), after: phase(after) },
            a: {
              alone: aAlone ? { ...aAlone.summary(), statuses: aAlone.statuses.toJSON() } : null,
              flood: { ...aSummary, seconds: a.seconds, answers_per_second: aSummary.n / a.seconds, statuses: aRefusals.toJSON() },
            },
            targets,
          },
          null,
          2,
        ),
      );
    }
  } finally {
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
