/**
 * Search benchmark: starts the whole system (--target=all) on a fresh PostgreSQL database, loads the generated
 * catalogue through the batch upload endpoint (ingest-to-searchable), then measures keyword, natural-language,
 * identifier, filtered and aggregate queries through the gateway, uncached and cached, and in the same run the same
 * queries sent straight to the PostgreSQL search engine (the engine floor) and a bare express + http-proxy-middleware
 * chain answering a fixed body of a cached answer's size (the floor for cached search). Prints one table.
 *
 *   node bench/dist/search.js [--records=100000] [--requests=300] [--seconds=5] [--concurrency=8] [--keep-database]
 *
 * Latency percentiles come from `--requests` requests sent one after another (at most --max-latency-seconds per
 * cell); requests per second from `--concurrency` requests kept in flight for `--seconds`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openDatabase } from '@trove/db';
import { classifyQuery, PostgresSearchEngine, type AggregateQuery, type Filter, type SearchEngine, type SearchQuery } from '@trove/search-engine';
import { BRANDS, KINDS, MATERIALS, SIZES, STANDARDS, catalogue, mulberry32, type CatalogueRecord } from './catalogue';
import { f1, HttpClient, latencyPass, throughputPass, type LatencyResult, type Op, type ThroughputResult } from './load';
import { benchArgs } from './args';
import { FLOOR_TABLE, floorAggregate, floorFiltered, floorIdentifierQuery, floorKeyword, floorNatural, floorPool, loadFloor, type FloorQuery } from './floor';
import { mb, procStatus } from './proc';
import { startSystem, type RunningSystem } from './system';

const COLLECTION = 'catalogue';
const BATCH_SIZE = 10_000;

// ---------------------------------------------------------------------------------------------------------------
// Requests: one description per request, rendered as an HTTP body for the gateway and as an engine query.

type SearchSpec = { op: 'search'; query?: string; filters: Filter[]; limit: number; offset: number; extras?: typeof EXTRAS };

/** What a search may add when asked (issue 33): highlights and three facets, measured against the same search without. */
const EXTRAS = { highlight: true, facets: ['brand', 'material', 'price'] } as const;
type AggregateSpec = { op: 'aggregate'; filters: Filter[]; group_by?: string; stats: string[] };
type Spec = SearchSpec | AggregateSpec;

const KIND_NAMES = ['keyword', 'natural-language', 'identifier (EAN/SKU)', 'identifier (standard)', 'filtered', 'aggregate'] as const;
type Kind = (typeof KIND_NAMES)[number];

/** A search's filter object (docs/behaviour/search.md): no suffix = equality, _min/_max ranges, _in any of. */
function filterObject(filters: Filter[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of filters) {
    const suffix = { eq: '', in: '_in', gte: '_min', lte: '_max', gt: '_gt', lt: '_lt' }[f.op];
    out[f.field + suffix] = f.value;
  }
  return out;
}

function httpOf(spec: Spec): { path: string; body: string } {
  if (spec.op === 'aggregate') {
    return {
      path: '/api/v1/aggregate',
      body: JSON.stringify({ collection: COLLECTION, filters: filterObject(spec.filters), group_by: spec.group_by, stats: spec.stats }),
    };
  }
  return {
    path: `/api/v1/search/${COLLECTION}`,
    body: JSON.stringify({ query: spec.query, filters: filterObject(spec.filters), limit: spec.limit, offset: spec.offset, ...spec.extras }),
  };
}

/** Shuffles in place with the given generator. */
function shuffle<T>(xs: T[], rnd: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

const dropLast = (s: string, n: number) => s.slice(0, Math.max(3, s.length - n));

/** Keyword queries: one to three content words of the catalogue's vocabulary, some ending in a prefix. */
function keywordPool(): string[] {
  const materials = ['steel', 'stainless', 'brass', 'aluminium', 'nylon', 'titanium'];
  const out = new Set<string>();
  for (const k of KINDS) out.add(k);
  for (const k of KINDS) for (const m of materials) out.add(`${m} ${k}`);
  for (const k of KINDS) for (const s of SIZES) out.add(`${s} ${k}`);
  for (const k of KINDS) for (const b of BRANDS) out.add(`${b} ${k}`);
  for (const m of materials) for (const b of BRANDS) out.add(`${b} ${m}`);
  // The last word as a prefix ("stainless wash", "M8 hex bo").
  for (const q of [...out]) {
    const words = q.split(' ');
    const last = words.pop()!;
    if (last.length > 4) out.add([...words, dropLast(last, 2)].join(' '));
  }
  return [...out].filter((q) => classifyQuery(q).type === 'keyword');
}

/** Natural-language questions over the same vocabulary. */
function sentencePool(rnd: () => number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const templates = [
    () => `which ${pick(KINDS)}s are made of ${pick(MATERIALS)} for outdoor use`,
    () => `show me ${pick(MATERIALS)} ${pick(KINDS)}s in size ${pick(SIZES)}`,
    () => `I need a ${pick(SIZES)} ${pick(KINDS)} from ${pick(BRANDS)}`,
    () => `what ${pick(KINDS)} do you have in ${pick(MATERIALS)}?`,
    () => `${pick(BRANDS)} ${pick(KINDS)} for indoor use made of ${pick(MATERIALS)}`,
    () => `is there a ${pick(KINDS)} in ${pick(MATERIALS)} with length ${5 * (1 + Math.floor(rnd() * 40))} mm`,
  ];
  const out = new Set<string>();
  for (let i = 0; i < 50_000 && out.size < 5_000; i++) out.add(pick(templates)());
  return [...out].filter((q) => classifyQuery(q).type === 'natural_language');
}

/** Every form of every standard of the catalogue: "DIN 933", "din933", "DIN-933". */
function standardPool(): string[] {
  const out: string[] = [];
  for (const s of STANDARDS) out.push(s, s.toLowerCase().replace(/ /g, ''), s.replace(/ /g, '-'));
  return out.filter((q) => classifyQuery(q).type === 'identifier');
}

/**
 * A source of requests of one kind: every call answers a request this source has not answered before (so none is
 * ever served from the response cache), deterministic for a seed, so the engine floor replays the gateway's requests.
 * Queries cycle through a pool; each round changes limit (15-25) and then offset, so every request is new.
 */
function source(kind: Kind, records: CatalogueRecord[], seed: number): () => Spec {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const cycling = (pool: string[]) => {
    shuffle(pool, rnd);
    let i = 0;
    return (): Spec => {
      const r = Math.floor(i / pool.length);
      const query = pool[i++ % pool.length]!;
      return { op: 'search', query, filters: [], limit: 20 + (r % 11) - 5, offset: Math.floor(r / 11) };
    };
  };
  switch (kind) {
    case 'keyword':
      return cycling(keywordPool());
    case 'natural-language':
      return cycling(sentencePool(rnd));
    case 'identifier (standard)':
      return cycling(standardPool());
    case 'identifier (EAN/SKU)': {
      const order = shuffle(
        records.map((_, i) => i),
        rnd,
      );
      let i = 0;
      return () => {
        const r = Math.floor(i / order.length);
        const rec = records[order[i % order.length]!]!;
        const query = i++ % 2 === 0 ? rec.collection_data.ean : rec.collection_data.sku;
        return { op: 'search', query, filters: [], limit: 20 - r, offset: 0 };
      };
    }
    case 'filtered': {
      // A query and one to three filters taken from one existing record, so at least that record matches.
      const seen = new Set<string>();
      return () => {
        for (;;) {
          const rec = pick(records);
          const d = rec.collection_data;
          const query = rnd() < 0.5 ? KINDS.find((k) => rec.name.includes(` ${k} `))! : d.brand;
          const candidates: Filter[][] = [
            [{ field: 'material', op: 'eq', value: d.material }],
            [
              { field: 'price', op: 'gte', value: Math.max(0, Math.round((d.price - rnd() * 20) * 100) / 100) },
              { field: 'price', op: 'lte', value: Math.round((d.price + rnd() * 20) * 100) / 100 },
            ],
            [{ field: 'in_stock', op: 'eq', value: d.in_stock }],
            [{ field: 'size', op: 'eq', value: d.size }],
            [{ field: 'rohs', op: 'eq', value: d.rohs }],
          ];
          const n = 1 + Math.floor(rnd() * 3);
          const filters = shuffle(candidates, rnd).slice(0, n).flat();
          const spec: Spec = { op: 'search', query, filters, limit: 20, offset: 0 };
          const key = JSON.stringify(spec);
          if (seen.has(key)) continue;
          seen.add(key);
          return spec;
        }
      };
    }
    case 'aggregate': {
      const seen = new Set<string>();
      return () => {
        for (;;) {
          const filters: Filter[] = [{ field: 'price', op: 'gte', value: Math.round(rnd() * 5000) / 100 }];
          if (rnd() < 0.5) filters.push({ field: 'material', op: 'eq', value: pick(MATERIALS) });
          const spec: Spec = { op: 'aggregate', filters, group_by: pick(['material', 'brand', 'size', 'standard', 'in_stock']), stats: ['price', 'length_mm'] };
          const key = JSON.stringify(spec);
          if (seen.has(key)) continue;
          seen.add(key);
          return spec;
        }
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Operations: a spec sent through the gateway, or straight to the engine.

/** What sampled answers showed. */
interface Checks {
  sampled: number;
  cacheHits: number;
  zero: number;
  fallback: number;
  /** query_type the service reported, counted. */
  types: Map<string, number>;
  /** Server-side processing_time_ms of sampled answers. */
  serverMs: number[];
  bytes: number[];
  /** Requests the gateway shed (503: no search slot came free in time), every one counted, not only sampled ones. */
  shed: number;
}

const newChecks = (): Checks => ({ sampled: 0, cacheHits: 0, zero: 0, fallback: 0, types: new Map(), serverMs: [], bytes: [], shed: 0 });

interface SearchAnswer {
  results?: unknown[];
  total?: number;
  metadata?: {
    cache_hit: boolean;
    zero_result_fallback_used: boolean;
    query_type: string;
    processing_time_ms: number;
    total_estimate: number;
    total_is_estimate: boolean;
  };
}

function gatewayOp(client: HttpClient, auth: Record<string, string>, spec: Spec, checks: Checks, sample: boolean): Op {
  const { path, body } = httpOf(spec);
  return async () => {
    const reply = await client.post(path, body, auth);
    // Shedding is the gateway's answer to more searches than it can serve (aggregates of a million records, ten in
    // flight): counted, and left out of the requests served.
    if (reply.status === 503) return void checks.shed++;
    if (reply.status !== 200) throw new Error(`${path} ${body} answered ${reply.status}: ${reply.body.toString().slice(0, 500)}`);
    if (!sample) return;
    const json = JSON.parse(reply.body.toString()) as SearchAnswer;
    checks.sampled++;
    checks.bytes.push(reply.body.length);
    if (json.metadata) {
      if (json.metadata.cache_hit) checks.cacheHits++;
      if (json.metadata.zero_result_fallback_used) checks.fallback++;
      if (json.results?.length === 0) checks.zero++;
      checks.types.set(json.metadata.query_type, (checks.types.get(json.metadata.query_type) ?? 0) + 1);
      checks.serverMs.push(json.metadata.processing_time_ms);
    } else if (json.total === 0) checks.zero++;
  };
}

/**
 * Disk and memory once the catalogue is loaded, in bytes: the database (the system's tables and indexes, without the
 * floor's table) or the PGlite data folder, and the system processes' resident memory, now and at their peak.
 * PostgreSQL's own memory is its configuration's (shared_buffers), not the records'. The scale curve (scale.ts) takes
 * the growth between two sizes per record added.
 */
async function measureFootprint(system: RunningSystem, records: number): Promise<{ disk: number; rss: number; peak: number; notes: string }> {
  let disk: number;
  let engine = '';
  if (system.dataDir) disk = folderBytes(system.dataDir);
  else {
    const db = new pg.Client({ connectionString: system.dbUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ total: string; floor: string; engine: string }>(
        `select pg_database_size(current_database()) as total, pg_total_relation_size('${FLOOR_TABLE}') as floor,
           (select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'search_engine' and c.relkind in ('r', 'm')) as engine`,
      );
      disk = Number(rows[0]!.total) - Number(rows[0]!.floor);
      engine = `, of which the search engine's ${f1(Number(rows[0]!.engine) / records)}`;
    } finally {
      await db.end();
    }
  }
  const rss = system.children.reduce((sum, c) => sum + procStatus(c.pid!, 'VmRSS'), 0);
  const peak = system.children.reduce((sum, c) => sum + procStatus(c.pid!, 'VmHWM'), 0);
  return {
    disk,
    rss,
    peak,
    notes: `disk ${mb(disk)} (${f1(disk / records)} bytes/record${engine}); system RSS ${mb(rss)} now (${f1(rss / records)} bytes/record), ${mb(peak)} at its peak`,
  };
}

/** The bytes of every file under `dir`. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Requests of each of keyword and filtered whose total is checked against an exact count (estimateAccuracy()). */
const ESTIMATE_CHECKS = 60;

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;

/**
 * How close estimated totals came: each request through the gateway as the bench sends it and again with
 * `exact_total` (counted exactly up to 10,000). `counted`: requests asked; `estimated`: answers flagged
 * total_is_estimate whose exact count is known; `errors`: their relative errors; `within`: those within 10 %.
 */
async function estimateAccuracy(client: HttpClient, auth: Record<string, string>, specs: Spec[]) {
  const errors: number[] = [];
  /** The requests whose estimate was more than 10 % off: their body, estimate and exact count. */
  const outside: string[] = [];
  const total = async (path: string, body: string) => {
    const reply = await client.post(path, body, auth);
    if (reply.status !== 200) throw new Error(`${path} ${body} answered ${reply.status}: ${reply.body.toString().slice(0, 500)}`);
    return (JSON.parse(reply.body.toString()) as SearchAnswer).metadata!;
  };
  for (const spec of specs) {
    const { path, body } = httpOf(spec);
    const sent = await total(path, body);
    if (!sent.total_is_estimate) continue;
    const exact = await total(path, JSON.stringify({ ...(JSON.parse(body) as object), exact_total: true }));
    if (exact.total_is_estimate) continue;
    const error = sent.total_estimate / exact.total_estimate - 1;
    errors.push(error);
    if (Math.abs(error) > 0.1) outside.push(`${body}: ${sent.total_estimate} for ${exact.total_estimate}`);
  }
  return { counted: specs.length, estimated: errors.length, within: errors.filter((e) => Math.abs(e) <= 0.1).length, errors, outside };
}

function engineOp(engine: SearchEngine, tenant: string, spec: Spec, checks: Checks, sample: boolean): Op {
  const scope = { kind: 'private' as const, tenant_id: tenant, collection: COLLECTION };
  return async () => {
    if (spec.op === 'aggregate') {
      const q: AggregateQuery = { scope, filters: spec.filters, group_by: spec.group_by, stats: spec.stats };
      const r = await engine.aggregate(q);
      if (sample) checks.sampled++, r.total === 0 && checks.zero++;
      return;
    }
    // What the search service does before it asks the engine: classify the query.
    const q: SearchQuery = { scope, filters: spec.filters, limit: spec.limit, offset: spec.offset };
    if (spec.query !== undefined) {
      const c = classifyQuery(spec.query);
      q.text = { type: c.type, query: spec.query, identifiers: c.identifiers };
    }
    const r = await engine.search(q);
    if (sample) {
      checks.sampled++;
      if (r.hits.length === 0) checks.zero++;
      if (q.text) checks.types.set(q.text.type, (checks.types.get(q.text.type) ?? 0) + 1);
    }
  };
}

/** The spec as the plain-table floor sends it (floor.ts), or undefined for a kind it has no query for. */
function floorQueryOf(kind: Kind, tenant: string, spec: Spec): FloorQuery | undefined {
  if (spec.op === 'aggregate') return floorAggregate(tenant, COLLECTION, spec.filters, spec.group_by, spec.stats);
  if (spec.query === undefined) return undefined;
  switch (kind) {
    case 'keyword':
      return floorKeyword(tenant, COLLECTION, spec.query, spec.limit, spec.offset);
    case 'natural-language':
      return floorNatural(tenant, COLLECTION, spec.query, spec.limit, spec.offset);
    case 'identifier (EAN/SKU)':
    case 'identifier (standard)':
      return floorIdentifierQuery(tenant, COLLECTION, spec.query, spec.limit, spec.offset);
    case 'filtered':
      return floorFiltered(tenant, COLLECTION, spec.query, spec.filters, spec.limit, spec.offset);
    default:
      return undefined;
  }
}

/** The spec as the Open API's search of one collection (public records of every tenant). */
function openOp(client: HttpClient, spec: Spec, checks: Checks, sample: boolean): Op {
  if (spec.op !== 'search') throw new Error('the Open API bench sends searches only');
  const body = JSON.stringify({ query: spec.query, filters: filterObject(spec.filters), limit: Math.min(50, spec.limit), offset: spec.offset });
  return async () => {
    const reply = await client.post(`/open/v1/search/${COLLECTION}`, body);
    if (reply.status !== 200) throw new Error(`open search ${body} answered ${reply.status}: ${reply.body.toString().slice(0, 500)}`);
    if (!sample) return;
    const json = JSON.parse(reply.body.toString()) as SearchAnswer;
    checks.sampled++;
    if (json.metadata?.cache_hit) checks.cacheHits++;
    if (json.results?.length === 0) checks.zero++;
  };
}

// ---------------------------------------------------------------------------------------------------------------

interface Row {
  measurement: string;
  path: string;
  latency?: LatencyResult;
  throughput?: ThroughputResult;
  rate?: string;
  notes: string;
}

const median = (xs: number[]) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);

/** A throughput pass's figures for the requests served: `shed` of its `n` were answered 503 and are left out. */
function served(t: ThroughputResult, shed: number): ThroughputResult {
  return shed === 0 ? t : { ...t, n: t.n - shed, rps: (t.rps * (t.n - shed)) / t.n };
}

function describeChecks(c: Checks, expectCache: 'miss' | 'hit' | undefined, expectedType?: string): string {
  if (c.sampled === 0) return '';
  const parts: string[] = [];
  if (expectCache === 'miss') parts.push(`cache_hit false ${c.sampled - c.cacheHits}/${c.sampled} sampled`);
  if (expectCache === 'hit') parts.push(`cache_hit true ${c.cacheHits}/${c.sampled} sampled`);
  if (expectedType && c.types.size > 0) {
    const ok = c.types.get(expectedType) ?? 0;
    parts.push(ok === c.sampled ? `all ${expectedType}` : `query_type ${[...c.types].map(([t, n]) => `${t} ${n}`).join(', ')}`);
  }
  if (c.zero > 0) parts.push(`${((100 * c.zero) / c.sampled).toFixed(0)} % empty`);
  if (c.fallback > 0) parts.push(`${((100 * c.fallback) / c.sampled).toFixed(0)} % filter fallback`);
  if (c.serverMs.length > 0) parts.push(`server p50 ${f1(median(c.serverMs))} ms`);
  if (c.shed > 0) parts.push(`${c.shed} shed (503, busy), left out of req/s`);
  return parts.join('; ');
}

const EXPECTED_TYPE: Record<Kind, string | undefined> = {
  keyword: 'keyword',
  'natural-language': 'natural_language',
  'identifier (EAN/SKU)': 'identifier',
  'identifier (standard)': 'identifier',
  filtered: 'keyword',
  aggregate: undefined,
};

async function main() {
  const args = benchArgs(
    { records: 100_000, requests: 300, seconds: 5, concurrency: 10, 'max-latency-seconds': 20 },
    ['keep-database', 'embedded'],
  );
  const { records: recordCount, requests, seconds, concurrency, 'max-latency-seconds': maxLatencySeconds } = args;
  const warmup = 20;
  const loadBefore = loadavg();
  const startedAt = new Date();

  // The throughput passes send more than any plan's searches a minute: the bench measures search, not the limiter
  // (bench:limiter and bench:noisy do).
  // Likewise the Open API's per-address limits.
  const system = await startSystem(
    { TENANT_RATE_LIMITS: 'false', OPEN_SEARCH_LIMIT_PER_MINUTE: '100000000', OPEN_LOOKUP_LIMIT_PER_MINUTE: '100000000' },
    args['keep-database'],
    args.embedded,
  );
  let floor: ReturnType<typeof floorPool> | undefined;
  let bare: ChildProcess | undefined;
  let engineDb: Awaited<ReturnType<typeof openDatabase>> | undefined;
  const rows: Row[] = [];
  let autovacuum = '?';
  let maintained = '?';
  try {
    const auth = { authorization: `Bearer ${system.key}` };
    const client = new HttpClient(system.base, Math.max(concurrency, 2));

    // 1. Ingest-to-searchable: batches of 10,000 through the gateway until an aggregate through the gateway counts
    // every record.
    const records: CatalogueRecord[] = [];
    const bodies: string[] = [];
    for (let b = 0; b * BATCH_SIZE < recordCount; b++) {
      const batch = [...catalogue(Math.min(BATCH_SIZE, recordCount - b * BATCH_SIZE), 1000 + b, b * BATCH_SIZE)];
      records.push(...batch);
      bodies.push(JSON.stringify({ records: batch }));
    }
    // The floor: the same catalogue in one plain table of the same database (floor.ts), loaded before the system's
    // upload so that the searches start as soon as the system's records are searchable.
    const floorRate = await loadFloor(system.dbUrl, records, system.tenant, COLLECTION);
    rows.push({
      measurement: 'floor: INSERT',
      path: `1,000-row INSERTs on 2 connections into ${'the plain floor table'}`,
      rate: `${Math.round(floorRate)} rows/s`,
      notes: 'loaded before the system\'s upload',
    });
    console.error(`floor loaded at ${Math.round(floorRate)} rows/s`);
    // Public records, so the Open API has the same catalogue to search; private search reads them the same way.
    const visibility = await fetch(`${system.base}/api/v1/collections/${COLLECTION}/default-visibility`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ default_visibility: 'public' }),
    });
    if (!visibility.ok) throw new Error(`default visibility answered ${visibility.status}: ${await visibility.text()}`);
    const t0 = performance.now();
    let accepted = 0;
    for (const body of bodies) {
      const res = await client.post(`/api/v1/upload/${COLLECTION}/product/batch`, body, auth);
      if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
      accepted += (JSON.parse(res.body.toString()) as { summary: { accepted: number } }).summary.accepted;
    }
    const uploaded = (performance.now() - t0) / 1000;
    if (accepted !== recordCount) throw new Error(`batches accepted ${accepted} of ${recordCount}`);
    let total = -1;
    let polls = 0;
    // At most 15 minutes, or 500 records a second at a million.
    const deadline = Math.max(15 * 60_000, (recordCount / 500) * 1000);
    while (total !== recordCount) {
      if (performance.now() - t0 > deadline) throw new Error(`not searchable after ${(deadline / 60_000).toFixed(0)} minutes: aggregate total ${total} of ${recordCount}`);
      const asked = performance.now();
      const res = await client.post('/api/v1/aggregate', JSON.stringify({ collection: COLLECTION }), auth);
      if (res.status !== 200) throw new Error(`aggregate answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
      total = (JSON.parse(res.body.toString()) as { total: number }).total;
      polls++;
      // An aggregate counts the whole collection (about a second at a million records on this machine): asked back to
      // back, the polls would take a core from the ingestion they wait for. A pause of four times the last poll keeps
      // them to a fifth of one, and the time they report within five polls of the truth.
      if (total !== recordCount) await new Promise((r) => setTimeout(r, Math.max(50, 4 * (performance.now() - asked))));
    }
    const searchable = (performance.now() - t0) / 1000;
    rows.push({
      measurement: 'ingest-to-searchable',
      path: `gateway: ${bodies.length} batch uploads of ≤ ${BATCH_SIZE}, then aggregate`,
      rate: `${Math.round(recordCount / searchable)} records/s`,
      notes: `${recordCount} records searchable ${searchable.toFixed(1)} s after the first request; uploads answered after ${uploaded.toFixed(1)} s; ${polls} aggregate polls`,
    });
    console.error(`ingested ${recordCount} records, searchable after ${searchable.toFixed(1)} s`);

    // No maintenance by hand: the engine keeps its table analysed, its GIN pending lists merged and (without an
    // autovacuum) its dead rows reclaimed itself, soon after writes pause (packages/search-engine/src/postgres/
    // maintenance.ts). What it had done when the searches began is written down beside them.
    const maintenance = new pg.Client({ connectionString: system.dbUrl });
    await maintenance.connect();
    autovacuum = String((await maintenance.query('show autovacuum')).rows[0]?.autovacuum);
    if (args.embedded) maintained = 'embedded: PGlite, its engine maintaining itself';
    else {
      const stat = (
        await maintenance.query(
          `select last_analyze, last_autoanalyze, last_vacuum, last_autovacuum from pg_stat_user_tables where relid = 'search_engine.documents'::regclass`,
        )
      ).rows[0] as Record<string, Date | null> | undefined;
      const since = (at: Date | null | undefined) => (at ? `${((Date.now() - at.getTime()) / 1000).toFixed(1)} s before` : 'never');
      maintained = `no manual maintenance; the engine's table: analysed ${since(stat?.last_analyze)} (autovacuum's: ${since(stat?.last_autoanalyze)}), vacuumed ${since(stat?.last_vacuum)} (autovacuum's: ${since(stat?.last_autovacuum)}) the searches began`;
    }
    await maintenance.end();
    maintained += `; searches began ${((performance.now() - t0) / 1000 - searchable).toFixed(1)} s after the load was searchable`;
    // What the loaded records take (the floor's table left out), before the searches.
    const footprint = await measureFootprint(system, recordCount);
    rows.push({
      measurement: 'footprint',
      path: system.dataDir ? 'PGlite data folder; system processes' : 'PostgreSQL database; system processes',
      rate: `${f1(footprint.disk / recordCount)} bytes/record`,
      notes: footprint.notes,
    });
    console.error(`footprint: ${footprint.notes}`);
    floor = floorPool(system.dbUrl, concurrency);

    // 2. The engine floor: the same PostgreSQL database, the same engine class, in this process (not beside an
    // embedded system: its PGlite folder is the system's alone).
    let engine: PostgresSearchEngine | undefined;
    if (!args.embedded) {
      engineDb = await openDatabase({ url: system.dbUrl, poolSize: concurrency + 2 });
      engine = new PostgresSearchEngine(engineDb);
      const engineTotal = (await engine.aggregate({ scope: { kind: 'private', tenant_id: system.tenant, collection: COLLECTION }, filters: [] })).total;
      if (engineTotal !== recordCount) throw new Error(`engine counts ${engineTotal} records, expected ${recordCount}`);
    }

    let bodyBytes = 0;
    const cachedSearchRps: Array<{ kind: Kind; rps: number }> = [];
    const results = new Map<string, Row>();
    for (const [k, kind] of KIND_NAMES.entries()) {
      const seed = 7_000 + k;
      const label = (mode: string) => `${kind}, ${mode}`;

      // Gateway, uncached: a fresh request every time; every fifth answer checked.
      {
        const checks = newChecks();
        const next = source(kind, records, seed);
        let i = 0;
        const op = () => gatewayOp(client, auth, next(), checks, i++ % 5 === 0);
        for (let w = 0; w < warmup; w++) await op()();
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        if (checks.shed > 0) throw new Error(`${kind}: the gateway shed ${checks.shed} of the requests sent one at a time`);
        const throughput = served(await throughputPass(op, concurrency, seconds), checks.shed);
        const row = { measurement: label('uncached'), path: 'gateway', latency, throughput, notes: describeChecks(checks, kind === 'aggregate' ? undefined : 'miss', EXPECTED_TYPE[kind]) };
        rows.push(row);
        results.set(row.measurement, row);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }

      // Gateway, uncached, the same keyword requests asking for highlights and three facets over every match.
      if (kind === 'keyword') {
        const checks = newChecks();
        const next = source(kind, records, seed);
        let i = 0;
        const op = () => gatewayOp(client, auth, { ...(next() as SearchSpec), extras: EXTRAS }, checks, i++ % 5 === 0);
        for (let w = 0; w < warmup; w++) await op()();
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        const throughput = served(await throughputPass(op, concurrency, seconds), checks.shed);
        const row = { measurement: label('highlights + 3 facets'), path: 'gateway', latency, throughput, notes: describeChecks(checks, 'miss', EXPECTED_TYPE[kind]) };
        rows.push(row);
        results.set(row.measurement, row);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }

      // Engine floor: the same requests in the same order, straight to the engine.
      if (engine) {
        const checks = newChecks();
        const next = source(kind, records, seed);
        let i = 0;
        const op = () => engineOp(engine, system.tenant, next(), checks, i++ % 5 === 0);
        for (let w = 0; w < warmup; w++) await op()();
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        const throughput = await throughputPass(op, concurrency, seconds);
        const row = { measurement: label('engine floor'), path: 'PostgresSearchEngine in the bench process', latency, throughput, notes: describeChecks(checks, undefined, EXPECTED_TYPE[kind]) };
        rows.push(row);
        results.set(row.measurement, row);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }

      // The floor: the same requests as the floor table's query, on one connection, then on `concurrency`.
      if (floorQueryOf(kind, system.tenant, source(kind, records, seed)())) {
        const next = source(kind, records, seed);
        let zero = 0;
        let n = 0;
        const op = (): Op => {
          const q = floorQueryOf(kind, system.tenant, next())!;
          return async () => {
            const r = await floor!.query(q.text, q.values);
            n++;
            if (r.rowCount === 0) zero++;
          };
        };
        for (let w = 0; w < warmup; w++) await op()();
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        const throughput = await throughputPass(op, concurrency, seconds);
        const row = { measurement: label('floor'), path: 'plain table (floor.ts), pg', latency, throughput, notes: zero > 0 ? `${((100 * zero) / n).toFixed(0)} % empty` : '' };
        rows.push(row);
        results.set(row.measurement, row);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }

      // The Open API, uncached: the same keyword requests over the public records.
      if (kind === 'keyword') {
        const checks = newChecks();
        const next = source(kind, records, seed);
        let i = 0;
        const op = () => openOp(client, next(), checks, i++ % 5 === 0);
        for (let w = 0; w < warmup; w++) await op()();
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        const throughput = await throughputPass(op, concurrency, seconds);
        const row = { measurement: label('Open API uncached'), path: 'gateway → open', latency, throughput, notes: describeChecks(checks, 'miss') };
        rows.push(row);
        results.set(row.measurement, row);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }

      // Gateway, cached: one request repeated after a warm-up.
      {
        const checks = newChecks();
        const spec = source(kind, records, seed + 100)();
        let i = 0;
        const op = () => gatewayOp(client, auth, spec, checks, i++ % 5 === 0);
        for (let w = 0; w < warmup; w++) await op()();
        Object.assign(checks, newChecks());
        const latency = await latencyPass(op, requests, maxLatencySeconds);
        const throughput = await throughputPass(op, concurrency, seconds);
        const note = describeChecks(checks, kind === 'aggregate' ? undefined : 'hit', EXPECTED_TYPE[kind]);
        const row = {
          measurement: label('cached'),
          path: 'gateway',
          latency,
          throughput,
          notes: kind === 'aggregate' ? `${note}${note ? '; ' : ''}aggregate answers carry no cache_hit flag` : note,
        };
        rows.push(row);
        results.set(row.measurement, row);
        if (kind !== 'aggregate') cachedSearchRps.push({ kind, rps: throughput.rps });
        if (kind === 'keyword') bodyBytes = median(checks.bytes);
        console.error(`${row.measurement}: p50 ${f1(latency.p50)} ms, ${throughput.rps.toFixed(0)} req/s`);
      }
    }

    // The totals: each of the first ESTIMATE_CHECKS keyword and filtered requests again as sent and with exact_total.
    const estimates = await estimateAccuracy(client, auth, [
      ...Array.from({ length: ESTIMATE_CHECKS }, source('keyword', records, 7_300)),
      ...Array.from({ length: ESTIMATE_CHECKS }, source('filtered', records, 7_301)),
    ]);
    console.error(`estimates: ${estimates.estimated} estimated, ${estimates.within} within 10 %`);
    for (const o of estimates.outside) console.error(`  more than 10 % off: ${o}`);

    // 3. The bare chain: express answering a fixed body of a cached keyword answer's size behind http-proxy-middleware.
    bare = fork(resolve(__dirname, 'bare-chain.js'), [String(bodyBytes)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const barePort = await new Promise<number>((res, rej) => {
      bare!.once('message', (m) => res((m as { port: number }).port));
      bare!.once('exit', (code) => rej(new Error(`bare chain exited with ${code}`)));
    });
    const bareClient = new HttpClient(`http://127.0.0.1:${barePort}`, Math.max(concurrency, 2));
    const bareBody = httpOf(source('keyword', records, 7_100)()).body;
    const bareOp = (): Op => async () => {
      const reply = await bareClient.post(`/api/v1/search/${COLLECTION}`, bareBody, auth);
      if (reply.status !== 200) throw new Error(`bare chain answered ${reply.status}`);
    };
    for (let w = 0; w < warmup * 5; w++) await bareOp()();
    const bareLatency = await latencyPass(bareOp, requests, maxLatencySeconds);
    const bareThroughput = await throughputPass(bareOp, concurrency, seconds);
    bareClient.close();
    rows.push({
      measurement: 'bare chain',
      path: 'express + http-proxy-middleware 3.0.10, fixed body',
      latency: bareLatency,
      throughput: bareThroughput,
      notes: `${bodyBytes}-byte body (a cached keyword answer's size); proxy and upstream in one child process`,
    });
    client.close();

    // 4. The table.
    const loadAfter = loadavg();
    console.log(
      `\nTrove search benchmark, ${startedAt.toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, ` +
        `node ${process.version}; ${recordCount} records; latency: ≤ ${requests} sequential requests; req/s: ${concurrency} in flight for ${seconds} s; ` +
        `load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after; autovacuum ${autovacuum}; ${maintained}`,
    );
    console.log(`| measurement | path | n | p50 ms | p95 ms | p99 ms | req/s (${concurrency} in flight) | p50 ms (${concurrency} in flight) | notes |`);
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
    for (const r of rows) {
      console.log(
        `| ${r.measurement} | ${r.path} | ${r.latency?.n ?? recordCount} | ${f1(r.latency?.p50)} | ${f1(r.latency?.p95)} | ${f1(r.latency?.p99)} | ${
          r.rate ?? r.throughput?.rps.toFixed(0)
        } | ${f1(r.throughput?.p50)} | ${r.notes} |`,
      );
    }

    // 5. Against the targets (bench/README.md).
    const cell = (m: string) => results.get(m);
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    console.log('\nAgainst the targets of bench/README.md (Trove through the gateway against the plain-table floor of this run):');
    for (const kind of ['identifier (EAN/SKU)', 'identifier (standard)'] as const) {
      const t = cell(`${kind}, uncached`)!.latency!;
      const f = cell(`${kind}, floor`)!.latency!;
      console.log(`- ${kind} p50 within 1 ms of the floor's: ${verdict(t.p50 - f.p50 <= 1)} (${f1(t.p50)} vs ${f1(f.p50)} ms, +${f1(t.p50 - f.p50)} ms)`);
    }
    // Keyword against a floor that ranks every match: a top-k ranking should beat it by 2× at least.
    const P50_BOUND = { keyword: 0.5, 'natural-language': 1.15, filtered: 1.0 } as const;
    for (const kind of ['keyword', 'natural-language', 'filtered'] as const) {
      const t = cell(`${kind}, uncached`)!.latency!;
      const f = cell(`${kind}, floor`)!.latency!;
      const bound = P50_BOUND[kind];
      console.log(`- ${kind} p50 at most ${bound}× the floor's: ${verdict(t.p50 <= bound * f.p50)} (${f1(t.p50)} vs ${f1(f.p50)} ms, ${ratio(t.p50, f.p50)})`);
      console.log(`- ${kind} p99 below the floor's: ${verdict(t.p99 < f.p99)} (${f1(t.p99)} vs ${f1(f.p99)} ms, ${ratio(t.p99, f.p99)})`);
    }
    {
      const t = cell('keyword, highlights + 3 facets')!.latency!;
      const p = cell('keyword, uncached')!.latency!;
      console.log(`- keyword with highlights and 3 facets p50 within 1.5× the same search without: ${verdict(t.p50 <= 1.5 * p.p50)} (${f1(t.p50)} vs ${f1(p.p50)} ms, ${ratio(t.p50, p.p50)})`);
    }
    {
      const t = cell('aggregate, uncached')!.latency!;
      const f = cell('aggregate, floor')!.latency!;
      console.log(`- aggregate p50 at most 2× the floor's GROUP BY on typed columns: ${verdict(t.p50 <= 2 * f.p50)} (${f1(t.p50)} vs ${f1(f.p50)} ms, ${ratio(t.p50, f.p50)})`);
    }
    {
      const t = cell('keyword, uncached')!.throughput!;
      const f = cell('keyword, floor')!.throughput!;
      console.log(`- keyword req/s at ${concurrency} connections at least 1.0× the floor's: ${verdict(t.rps >= f.rps)} (${t.rps.toFixed(0)} vs ${f.rps.toFixed(0)}, ${ratio(t.rps, f.rps)})`);
      const o = cell('keyword, Open API uncached')!.latency!;
      const p = cell('keyword, uncached')!.latency!;
      console.log(`- Open API p50 at most 2 ms above private keyword search: ${verdict(o.p50 - p.p50 <= 2)} (${f1(o.p50)} vs ${f1(p.p50)} ms, +${f1(o.p50 - p.p50)} ms)`);
    }
    {
      const { estimated, within, errors, counted } = estimates;
      const range = errors.length ? `${pct(Math.min(...errors))} to ${pct(Math.max(...errors))}` : 'none';
      console.log(
        `- estimated totals within 10 % of the exact count: ${verdict(within === estimated)} (${within} of ${estimated} estimated totals of ${counted} keyword and filtered requests; from ${range})`,
      );
    }
    for (const c of cachedSearchRps) {
      console.log(
        `- cached ${c.kind} req/s at least 1.0× the bare chain's: ${verdict(c.rps >= bareThroughput.rps)} (${c.rps.toFixed(0)} vs ${bareThroughput.rps.toFixed(0)} req/s, ${ratio(c.rps, bareThroughput.rps)})`,
      );
    }
    console.log(`- ingest-to-searchable (batch uploads) at least 0.33× the floor's INSERT rows/s: ${verdict(recordCount / searchable >= 0.33 * floorRate)} (${Math.round(recordCount / searchable)} vs ${Math.round(floorRate)}, ${ratio(recordCount / searchable, floorRate)})`);
    // 6. Against another run (BENCH_BASELINE, written by that run's BENCH_JSON): the embedded default against the
    // PostgreSQL server, no workload more than 4× slower.
    const mine = Object.fromEntries(
      [...results].map(([m, r]) => [m, { p50: r.latency?.p50, p99: r.latency?.p99, rps: r.throughput?.rps }]),
    ) as Record<string, { p50?: number; p99?: number; rps?: number }>;
    mine['ingest-to-searchable'] = { rps: recordCount / searchable };
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(
          {
            embedded: args.embedded,
            records: recordCount,
            results: mine,
            ingest: { searchable: recordCount / searchable, floor: floorRate },
            footprint: { disk: footprint.disk, rss: footprint.rss, peak: footprint.peak },
            estimates,
          },
          null,
          2,
        ),);
    if (process.env.BENCH_BASELINE) {
      const base = JSON.parse(readFileSync(process.env.BENCH_BASELINE, 'utf8')) as { embedded: boolean; results: typeof mine };
      const shape = (e: boolean) => (e ? 'embedded (PGlite)' : 'PostgreSQL server');
      console.log(`\nThis run (${shape(args.embedded)}) against ${process.env.BENCH_BASELINE} (${shape(base.embedded)}): how many times slower`);
      console.log('| measurement | p50 | p99 | req/s |');
      console.log('|---|---:|---:|---:|');
      let worst = 0;
      for (const [m, r] of Object.entries(mine)) {
        const b = base.results[m];
        if (!b || m.includes('floor')) continue;
        const slower = [r.p50 && b.p50 ? r.p50 / b.p50 : undefined, r.p99 && b.p99 ? r.p99 / b.p99 : undefined, r.rps && b.rps ? b.rps / r.rps : undefined];
        worst = Math.max(worst, ...slower.filter((x): x is number => x !== undefined));
        console.log(`| ${m} | ${slower.map((x) => (x === undefined ? '—' : `${x.toFixed(2)}×`)).join(' | ')} |`);
      }
      console.log(`- no workload more than 4× slower: ${verdict(worst <= 4)} (worst ${worst.toFixed(2)}×)`);
    }
  } finally {
    if (bare && bare.exitCode === null) {
      bare.kill('SIGTERM');
      await new Promise((r) => bare!.once('exit', r));
    }
    await engineDb?.close();
    await floor?.end();
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
