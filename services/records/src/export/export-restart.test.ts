import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { RECORDS_BULK_UPSERT } from '@trove/contracts';
import { sql } from '@trove/db';
import { createLogger } from '@trove/platform';
import { eventually, startTestService, type TestService } from '@trove/testing';
import { recordsModule } from '../index';
import { RECORD_COLUMNS } from './format';
import { ExportRunner, type ExportRunnerOptions } from './runner';
import type { ExportDb, ExportRow } from './store';
import { csvObjects } from '../../test/csv';

/**
 * Jobs outlive the process running them. The service is initialised but not started, so its own runner stays idle
 * while runners made here play the processes that stop (cleanly, or as in a crash); then the service starts, as the
 * next process would, and finishes their jobs.
 */

const RECORDS = 2000;
let svc: TestService;
let db: ExportDb;
const tenant = randomUUID();
let expected: string[];

const get = (path: string) => request(svc.instance.app).get(path).set(svc.as(tenant, ['admin']));
const text = (path: string) =>
  get(path)
    .buffer(true)
    .parse((res, done) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done(null, body));
    });

async function startExport(query: string): Promise<string> {
  const res = await request(svc.instance.app).post(`/export?${query}`).set(svc.as(tenant, ['admin']));
  expect(res.status).toBe(202);
  return res.body.export_id as string;
}

const job = async (id: string): Promise<ExportRow> => (await db.selectFrom('records.exports').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as ExportRow;

/**
 * A runner writing small parts, so a job of RECORDS records takes hundreds of them and can be stopped midway. It runs
 * one job at a time, the oldest it may take, so each test's runner takes the job that test made.
 */
function runner(opts: Partial<ExportRunnerOptions> = {}): ExportRunner {
  return new ExportRunner({ db, logger: createLogger({ level: 'silent', name: 'test' }), ttlHours: 24, staleSeconds: 1, concurrency: 1, partBytes: 8 * 1024, pageBytes: 4 * 1024, ...opts });
}

/** Runs `id` on a runner of its own until it has committed a few parts, then stops that runner. */
async function stopMidway(id: string): Promise<ExportRow> {
  const first = runner();
  first.start();
  await eventually(async () => expect((await job(id)).parts).toBeGreaterThanOrEqual(3), 10_000);
  await first.stop();
  return job(id);
}

beforeAll(async () => {
  svc = await startTestService(recordsModule, { start: false, config: { EXPORT_STALE_SECONDS: '1' } });
  db = svc.database.db;
  for (let from = 0; from < RECORDS; from += 1000) {
    const records = Array.from({ length: 1000 }, (_, k) => {
      const i = from + k;
      return { name: `Item ${i}, "quoted"`, source_id: `S-${i}`, collection_data: { n: i, group: { a: i % 3 }, tags: [i, 'x'] } };
    });
    const res = await request(svc.instance.app)
      .post(RECORDS_BULK_UPSERT.path)
      .set(svc.as(tenant, ['upload'], undefined, 'ingestion'))
      .send({ collection: 'bulk', record_type: 'item', source_type: 'api', records });
    expect(res.status).toBe(200);
  }
  const rows = await sql<{ id: string }>`select id from records.records where tenant_id = ${tenant} order by created_at, id`.execute(db);
  expected = rows.rows.map((r) => r.id);
  expect(expected).toHaveLength(RECORDS);
});
afterAll(() => svc.stop());

describe('an export whose process stops', () => {
  let crashed: string;
  let cleanStop: string;

  it('leaves a crashed process holding its job', async () => {
    crashed = await startExport('collection=bulk&format=json');
    await stopMidway(crashed);
    // As a crash leaves it: held by a process that will never renew it. Its lease is dated ahead until the service
    // starts below, so the runners of the next tests leave it alone.
    await db.updateTable('records.exports').set({ owner: randomUUID(), heartbeat_at: sql`now() + interval '1 hour'` }).where('id', '=', crashed).execute();
    const left = await job(crashed);
    expect(left.progress).toBeGreaterThan(0);
    expect(left.progress).toBeLessThan(RECORDS);
  });

  it('fails a job that cannot succeed, with the reason, and keeps no file', async () => {
    const failed = await startExport('collection=bulk&format=csv');
    const strict = runner({ maxColumns: 2 });
    strict.start();
    await eventually(async () => expect((await job(failed)).status).toBe('failed'));
    await strict.stop();
    const status = await get(`/export/${failed}/status`);
    expect(status.body).toEqual({ export_id: failed, status: 'failed', progress: 0, total: RECORDS, error: expect.stringContaining('more than 2 distinct collection_data fields') });
    const download = await get(`/export/${failed}/download`);
    expect(download.status).toBe(409);
    expect(download.body.detail).toContain('failed');
    expect(Number((await sql<{ n: number }>`select count(*)::int as n from records.export_parts where export_id = ${failed}`.execute(db)).rows[0]!.n)).toBe(0);
  });

  it('keeps what a cleanly stopped process committed, and releases the job', async () => {
    cleanStop = await startExport('collection=bulk&format=csv');
    const left = await stopMidway(cleanStop);
    expect(left).toMatchObject({ status: 'processing', owner: null, total: RECORDS });
    expect(left.progress).toBeGreaterThan(0);
    expect(left.progress).toBeLessThan(RECORDS);
    expect((await get(`/export/${cleanStop}/download`)).status).toBe(409);
  });

  it('is finished by the next process: the released job at once, the crashed one once its lease is stale', async () => {
    // The crashed process's last renewal was just now.
    await db.updateTable('records.exports').set({ heartbeat_at: sql`now()` }).where('id', '=', crashed).execute();
    await svc.instance.start!();
    expect((await job(crashed)).status).toBe('processing');
    await eventually(async () => {
      expect((await job(cleanStop)).status).toBe('completed');
      expect((await job(crashed)).status).toBe('completed');
    }, 20_000);
    for (const id of [cleanStop, crashed]) {
      expect((await get(`/export/${id}/status`)).body).toEqual({ export_id: id, status: 'completed', progress: RECORDS, total: RECORDS });
      expect((await job(id)).attempts).toBe(2);
    }
  });

  it('has every record exactly once in the resumed CSV, in order, under one header', async () => {
    const res = await text(`/export/${cleanStop}/download`);
    expect(res.status).toBe(200);
    const { header, rows } = csvObjects(res.body as string);
    expect(header).toEqual([...RECORD_COLUMNS, 'collection_data.group.a', 'collection_data.n', 'collection_data.tags']);
    expect(rows.map((r) => r.id)).toEqual(expected);
    expect(rows.find((r) => r.source_id === 'S-7')).toMatchObject({ name: 'Item 7, "quoted"', 'collection_data.n': '7', 'collection_data.group.a': '1', 'collection_data.tags': '[7,"x"]' });
  });

  it('has every record exactly once in the resumed JSON document', async () => {
    const res = await text(`/export/${crashed}/download`);
    expect(res.status).toBe(200);
    const records = JSON.parse(res.body as string) as { id: string; collection_data: { n: number } }[];
    expect(records.map((r) => r.id)).toEqual(expected);
  });
});

describe('expiry', () => {
  it('deletes the job and its file once expired; status and download answer 404', async () => {
    const id = await startExport('collection=bulk&format=json');
    await eventually(async () => expect((await job(id)).status).toBe('completed'), 20_000);
    const parts = async () => Number((await sql<{ n: number }>`select count(*)::int as n from records.export_parts where export_id = ${id}`.execute(db)).rows[0]!.n);
    expect(await parts()).toBeGreaterThan(0);
    await db.updateTable('records.exports').set({ expires_at: sql`now() - interval '1 second'` }).where('id', '=', id).execute();
    // Expired is gone at once, whether or not the sweep has run.
    expect((await get(`/export/${id}/status`)).status).toBe(404);
    expect((await get(`/export/${id}/download`)).status).toBe(404);
    await eventually(async () => {
      expect(await parts()).toBe(0);
      expect(await db.selectFrom('records.exports').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    });
  });

  it('sets a completed job to expire EXPORT_TTL_HOURS after it finished', async () => {
    const id = await startExport('collection=bulk');
    await eventually(async () => expect((await job(id)).status).toBe('completed'), 20_000);
    const row = await job(id);
    expect(row.expires_at!.getTime() - row.completed_at!.getTime()).toBe(24 * 3600 * 1000);
  });
});
