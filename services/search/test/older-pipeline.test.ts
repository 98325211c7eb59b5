import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Subscription } from '@trove/bus';
import { RECORDS_BULK_UPSERT, TOPICS, acknowledgementsIn, recordIndexedEvent, type RecordIndexedEvent } from '@trove/contracts';
import { sql } from '@trove/db';
import { eventually } from '@trove/testing';
import { holdEngine, product, startSystem, type System } from './helpers';

jest.setTimeout(60_000);

/**
 * The older vocabulary's asynchronous pipeline (docs/behaviour/older-vocabulary.md, "The older pipeline")
 * with the real records and search services on one database. The engine is made to fail the way it fails in
 * production: its table out of reach (renamed) or held by another transaction's lock.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /health/search as the gateway forwards it. */
const searchHealth = (sys: System) => request(sys.search.instance.app).get('/health/search').set(sys.search.as(randomUUID(), []));

/** Every acknowledgement search publishes, in order. */
async function watchAcks(sys: System): Promise<{ acks: RecordIndexedEvent[]; events: RecordIndexedEvent[][]; stop(): Promise<void> }> {
  const acks: RecordIndexedEvent[] = [];
  const events: RecordIndexedEvent[][] = [];
  const subscription: Subscription = await sys.records.bus.subscribe({
    group: `test.acks.${randomUUID()}`,
    topics: [TOPICS.recordsIndexed],
    handler: async (delivered) => {
      for (const e of delivered) {
        const list = acknowledgementsIn(e.payload).map((a) => recordIndexedEvent.parse(a));
        events.push(list);
        acks.push(...list);
      }
    },
  });
  return { acks, events, stop: () => subscription.stop() };
}

/** Writes `n` records in one chunk through records' internal bulk upsert, as an older-vocabulary upload does. */
async function olderUpload(sys: System, tenant: string, collection: string, n: number): Promise<string[]> {
  const records = Array.from({ length: n }, (_, i) => ({ name: `Pipeline washer ${i}`, collection_data: { size: i } }));
  const res = await request(sys.records.instance.app)
    .post(RECORDS_BULK_UPSERT.path)
    .set(sys.records.as(tenant, ['upload'], undefined, 'ingestion'))
    .send({ collection, record_type: 'washer', source_type: 'file_upload', records, pipeline: true, vocabulary: 'older' });
  expect(res.status).toBe(200);
  return res.body.results.map((r: { id: string }) => r.id);
}

describe('entities are indexed asynchronously', () => {
  let sys: System;
  let t: ReturnType<System['tenant']>;
  beforeAll(async () => {
    sys = await startSystem({ PIPELINE_BATCH_SIZE: '20' });
    t = sys.tenant();
  });
  afterAll(() => sys.stop());

  it('an entity answers pending, moves through processing to completed, and is then found with both vocabularies', async () => {
    const watch = await watchAcks(sys);
    try {
      const res = await t.records.post('/entities', { name: 'Pipeline hex nut', vertical: 'older-nuts', entity_type: 'nut', vertical_data: { size: 'M8' } });
      expect(res.status).toBe(201);
      expect(res.body.embedding_status).toBe('pending');
      await eventually(async () => expect((await t.records.get(`/entities/${res.body.id}`)).body.embedding_status).toBe('completed'));
      expect(watch.acks.filter((a) => a.record_id === res.body.id).map((a) => a.status)).toEqual(['processing', 'indexed']);

      const found = await t.search.post('/search/older-nuts', { query: 'hex nut' });
      expect(found.status).toBe(200);
      expect(found.body.results[0]).toMatchObject({
        record_id: res.body.id,
        entity_id: res.body.id,
        collection: 'older-nuts',
        vertical: 'older-nuts',
        record_type: 'nut',
        entity_type: 'nut',
        collection_data: { size: 'M8' },
        vertical_data: { size: 'M8' },
      });
    } finally {
      await watch.stop();
    }
  });

  it('a collection created through the current vocabulary answers only the current names', async () => {
    await t.records.post('/records', product({ collection: 'current-nuts', name: 'Current hex nut' }));
    const found = await t.search.post('/search/current-nuts', { query: 'hex nut' });
    expect(found.body.results).toHaveLength(1);
    for (const field of ['entity_id', 'entity_type', 'vertical', 'vertical_data']) expect(found.body.results[0]).not.toHaveProperty(field);
  });

  it('/health/search reports the pipeline', async () => {
    const res = await searchHealth(sys);
    expect(res.body.pipeline).toEqual({ queued: 0, running: 0, breaker: 'closed', consecutive_failures: 0 });
  });
});

describe('jobs of PIPELINE_BATCH_SIZE, PIPELINE_WORKER_CONCURRENCY at a time', () => {
  let sys: System;
  beforeAll(async () => {
    sys = await startSystem({ PIPELINE_BATCH_SIZE: '5', PIPELINE_WORKER_CONCURRENCY: '2', PIPELINE_JOB_TIMEOUT: '30' });
  });
  afterAll(() => sys.stop());

  it('runs two jobs of five while the engine is held, the rest waiting queued, and finishes all once it is free', async () => {
    const t = sys.tenant();
    const watch = await watchAcks(sys);
    const engine = await holdEngine(sys);
    try {
      const ids = await olderUpload(sys, t.id, 'batched', 12);
      // Acknowledgements published while an apply waits reach nobody before it ends (the embedded event log delivers
      // in commit order): the pipeline's own report says what runs.
      const report = { queued: 2, running: 10, breaker: 'closed', consecutive_failures: 0 };
      await eventually(async () => expect((await searchHealth(sys)).body.pipeline).toEqual(report));
      await sleep(500);
      expect((await searchHealth(sys)).body.pipeline).toEqual(report);

      engine.release();
      await engine.released;
      await eventually(async () => {
        for (const id of ids) expect((await t.records.get(`/entities/${id}`)).body.embedding_status).toBe('completed');
      });
      const jobSizes = watch.events.filter((list) => list.every((a) => a.status === 'processing')).map((list) => list.length);
      expect(jobSizes.sort()).toEqual([2, 5, 5]);
    } finally {
      engine.release();
      await engine.released.catch(() => undefined);
      await watch.stop();
    }
  });
});

describe('retries, failure and the breaker', () => {
  let sys: System;
  const pipelineOf = async () => (await searchHealth(sys)).body.pipeline;
  const breakEngine = () => sql`alter table search_engine.documents rename to documents_out_of_reach`.execute(sys.db.database.db);
  const mendEngine = () => sql`alter table search_engine.documents_out_of_reach rename to documents`.execute(sys.db.database.db);

  beforeAll(async () => {
    sys = await startSystem({
      PIPELINE_MAX_RETRIES: '2',
      PIPELINE_RETRY_DELAY_MS: '100',
      PIPELINE_WORKER_CONCURRENCY: '1',
      PIPELINE_BREAKER_FAILURES: '5',
      PIPELINE_BREAKER_PAUSE_SECONDS: '3',
      PIPELINE_JOB_TIMEOUT: '1',
    });
  });
  afterAll(() => sys.stop());

  it('fails an entity after PIPELINE_MAX_RETRIES retries; retry-reset queues it again', async () => {
    const t = sys.tenant();
    const watch = await watchAcks(sys);
    await breakEngine();
    let mended = false;
    try {
      const { id } = (await t.records.post('/entities', { name: 'Doomed bolt', vertical: 'failing', entity_type: 'bolt' })).body;
      await eventually(async () => expect((await t.records.get(`/entities/${id}`)).body.embedding_status).toBe('failed'));
      // One attempt and two retries, each announced processing.
      expect(watch.acks.filter((a) => a.record_id === id).map((a) => a.status)).toEqual(['processing', 'processing', 'processing', 'failed']);
      expect(await pipelineOf()).toMatchObject({ queued: 0, running: 0, breaker: 'closed' });

      await mendEngine();
      mended = true;
      expect((await t.records.post('/entities/retry-reset')).body).toEqual({ reset: 1 });
      await eventually(async () => expect((await t.records.get(`/entities/${id}`)).body.embedding_status).toBe('completed'));
    } finally {
      if (!mended) await mendEngine();
      await watch.stop();
    }
  });

  it('opens after five consecutive failed jobs: no job starts for the pause, then one tries and the rest follow', async () => {
    const t = sys.tenant();
    await breakEngine();
    let mended = false;
    try {
      const first = (await t.records.post('/entities', { name: 'First broken bolt', vertical: 'breaker', entity_type: 'bolt' })).body.id;
      await eventually(async () => expect((await t.records.get(`/entities/${first}`)).body.embedding_status).toBe('failed'));
      const second = (await t.records.post('/entities', { name: 'Second broken bolt', vertical: 'breaker', entity_type: 'bolt' })).body.id;
      // Its first failure is the fourth in a row, its first retry the fifth: the breaker opens with it still to retry.
      await eventually(async () => expect((await pipelineOf()).breaker).toBe('open'));
      await mendEngine();
      mended = true;

      const waiting = (await t.records.post('/entities', { name: 'Patient bolt', vertical: 'breaker', entity_type: 'bolt' })).body.id;
      await sleep(1_000);
      expect(await pipelineOf()).toMatchObject({ breaker: 'open', queued: 2 });
      expect((await t.records.get(`/entities/${waiting}`)).body.embedding_status).toBe('pending');

      await eventually(async () => {
        expect((await t.records.get(`/entities/${waiting}`)).body.embedding_status).toBe('completed');
        expect((await t.records.get(`/entities/${second}`)).body.embedding_status).toBe('completed');
      }, 15_000);
      expect((await pipelineOf()).breaker).toBe('closed');
      expect((await t.records.get(`/entities/${first}`)).body.embedding_status).toBe('failed');
    } finally {
      if (!mended) await mendEngine();
    }
  });

  it('a job that outlives PIPELINE_JOB_TIMEOUT fails and is retried', async () => {
    const t = sys.tenant();
    const watch = await watchAcks(sys);
    const engine = await holdEngine(sys);
    try {
      const { id } = (await t.records.post('/entities', { name: 'Slow bolt', vertical: 'timeouts', entity_type: 'bolt' })).body;
      await eventually(async () => expect((await pipelineOf()).consecutive_failures).toBeGreaterThanOrEqual(1));
      engine.release();
      await engine.released;
      await eventually(async () => expect((await t.records.get(`/entities/${id}`)).body.embedding_status).toBe('completed'));
      // In the embedded event log, acknowledgements published while the timed-out apply waited are delivered once it
      // ends: by now every attempt's has arrived.
      await eventually(async () => expect(watch.acks.filter((a) => a.record_id === id && a.status === 'processing').length).toBeGreaterThanOrEqual(2));
      expect((await pipelineOf()).consecutive_failures).toBe(0);
    } finally {
      engine.release();
      await engine.released.catch(() => undefined);
      await watch.stop();
    }
  });
});
