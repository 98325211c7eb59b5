/**
 * Throughput of POST /internal/records/bulk-upsert as ingestion drives it: uploads of 10,000 records sent as 10 calls
 * of 1,000, over real HTTP, against a fresh database on the test PostgreSQL server (TEST_DATABASE_URL, default
 * 127.0.0.1:5432). Runs once with the real event bus and once with a bus that drops events, to show their cost.
 *
 *   npx tsc -b services/records/bench && node services/records/dist-bench/bulk-upsert.js [--uploads 5] [--concurrency 1]
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { EventBus } from '@trove/bus';
import { RECORDS_BULK_UPSERT, bulkUpsertResponse } from '@trove/contracts';
import { sql } from '@trove/db';
import { startTestService } from '@trove/testing';
import { buildApp, createServices, recordsModule } from '../dist/index';
import type { Db } from '../dist/shared/schema';

const CALLS = 10;
const CHUNK = 1000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Records shaped like the ingestion benchmark's catalogue (bench/src/catalogue.ts). */
function records(first: number, variant: string): object[] {
  const out: object[] = [];
  for (let n = first; n < first + CHUNK; n++) {
    const size = `M${3 + (n % 18)}`;
    const length = 5 * (1 + (n % 40));
    out.push({
      name: `${size}x${length} hex bolt stainless steel A2 DIN 933 #${n}${variant}`,
      source_id: `SRC-${n}`,
      collection_data: {
        description: `Würth hex bolt in stainless steel A2, size ${size}, length ${length} mm, made to DIN 933. Packed in boxes of ${50 * (1 + (n % 10))}; suitable for indoor and outdoor use.`,
        ean: String(4000000000000 + n),
        standard: 'DIN 933',
        sku: `WUR-${size}-${length}-${String(n).padStart(7, '0')}`,
        price: (n % 10000) / 100,
        material: 'stainless steel A2',
        size,
        brand: 'Würth',
        length_mm: length,
        in_stock: n % 5 !== 0,
        rohs: n % 2 === 0,
      },
    });
  }
  return out;
}

function body(upload: number, call: number, variant = ''): string {
  return JSON.stringify({
    collection: 'catalogue',
    record_type: 'product',
    source_type: 'file_upload',
    source_name: 'bench',
    records: records((upload * CALLS + call) * CHUNK, variant),
  });
}

interface Phase {
  label: string;
  records: number;
  seconds: number;
  statuses: Record<string, number>;
  backlog: number;
  /** CPU seconds this process (HTTP client and service) and the database's backends spent on the phase. */
  nodeCpu: number;
  pgCpu: number;
}

/** CPU seconds (user + system) of processes by pid, from /proc (Linux, database on this machine). */
function cpuOf(pids: number[]): Map<number, number> {
  const ticks = 100;
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // Not on this machine, or gone.
    }
  }
  return out;
}

async function run(label: string, dropEvents: boolean, uploads: number, concurrency: number): Promise<Phase[]> {
  const svc = await startTestService(recordsModule);
  let server: Server | undefined;
  try {
    let app = svc.instance.app;
    if (dropEvents) {
      const bus: EventBus = { ...svc.bus, kind: svc.bus.kind, publishInTransaction: async () => {} };
      const db: Db = svc.database.db;
      app = buildApp({ config: svc.ctx.config, logger: svc.ctx.logger, readiness: svc.ctx.readiness, ...createServices(db, bus) });
    }
    server = app.listen(0);
    await new Promise((r) => server!.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${RECORDS_BULK_UPSERT.path}`;
    const tenant = crypto.randomUUID();

    const backends = async () =>
      (await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(svc.database.db)).rows.map((r) => r.pid);

    const upload = async (name: string, bodies: string[]): Promise<Phase> => {
      const statuses: Record<string, number> = {};
      const pgBefore = cpuOf(await backends());
      const nodeBefore = process.cpuUsage();
      let backlog = 0;
      const send = async (b: string) => {
        const res = await fetch(url, { method: 'POST', headers: { ...svc.as(tenant, ['upload'], undefined, 'ingestion'), 'content-type': 'application/json' }, body: b });
        if (res.status !== 200) throw new Error(`${res.status}: ${(await res.text()).slice(0, 500)}`);
        const parsed = bulkUpsertResponse.parse(await res.json());
        for (const r of parsed.results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        backlog = Math.max(backlog, parsed.pending_indexing);
      };
      const t0 = performance.now();
      for (let i = 0; i < bodies.length; i += concurrency) await Promise.all(bodies.slice(i, i + concurrency).map(send));
      const seconds = (performance.now() - t0) / 1000;
      const node = process.cpuUsage(nodeBefore);
      let pgCpu = 0;
      for (const [pid, cpu] of cpuOf(await backends())) pgCpu += cpu - (pgBefore.get(pid) ?? 0);
      return { label: `${label}: ${name}`, records: bodies.length * CHUNK, seconds, statuses, backlog, nodeCpu: (node.user + node.system) / 1e6, pgCpu };
    };

    const phases: Phase[] = [];
    for (let u = 0; u < uploads; u++) {
      phases.push(await upload(`new upload ${u + 1}`, Array.from({ length: CALLS }, (_, c) => body(u, c))));
    }
    phases.push(await upload('identical re-upload of upload 1', Array.from({ length: CALLS }, (_, c) => body(0, c))));
    phases.push(await upload('changed re-upload of upload 1', Array.from({ length: CALLS }, (_, c) => body(0, c, ' v2'))));
    return phases;
  } finally {
    if (server) await new Promise((r) => server!.close(r));
    await svc.stop();
  }
}

async function main() {
  const uploads = arg('uploads', 5);
  const concurrency = arg('concurrency', 1);
  const phases = [...(await run('events', false, uploads, concurrency)), ...(await run('no events', true, uploads, concurrency))];
  console.log(`\nbulk upsert, ${CALLS} calls × ${CHUNK} records per upload, concurrency ${concurrency}`);
  console.log('| phase | records | seconds | records/s | node CPU s | PostgreSQL CPU s | results | pending_indexing after |');
  console.log('|---|---:|---:|---:|---:|---:|---|---:|');
  for (const p of phases) {
    console.log(
      `| ${p.label} | ${p.records} | ${p.seconds.toFixed(2)} | ${Math.round(p.records / p.seconds)} | ${p.nodeCpu.toFixed(2)} | ${p.pgCpu.toFixed(2)} | ${JSON.stringify(p.statuses)} | ${p.backlog} |`,
    );
  }
  console.log('node CPU covers this whole process: the HTTP client building and sending the bodies as well as the service.');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
