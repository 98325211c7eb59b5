import { randomUUID } from 'node:crypto';
import { MemoryCache } from '@trove/cache';
import { sql } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createSearchEngine, type SearchEngine } from '@trove/search-engine';
import { eventually, startTestService, type TestService } from '@trove/testing';
import { searchModule } from '../src';
import { PipelineWorker } from '../src/pipeline-worker';
import { product } from './product';

let search: TestService;
let engine: SearchEngine;
let worker: PipelineWorker;

// A worker of its own on the search service's database (its tables made by the module), vacuuming after 3 records.
beforeAll(async () => {
  search = await startTestService(searchModule, { start: false });
  engine = await createSearchEngine({ database: search.database });
  worker = new PipelineWorker(
    { db: search.database.db, engine, cache: new MemoryCache(), bus: search.bus, logger: createLogger({ level: 'silent' }) },
    { batchSize: 2, concurrency: 1, maxRetries: 0, jobTimeoutMs: 10_000, retryDelayMs: 0, breakerFailures: 5, breakerPauseMs: 1_000, pollMs: 50, vacuumEvery: 3 },
  );
  worker.start();
});
afterAll(async () => {
  await worker.stop();
  await engine.close();
  await search.stop();
});

const vacuums = async () =>
  (
    await sql<{ n: number }>`
      select (vacuum_count + autovacuum_count)::integer as n from pg_stat_user_tables where schemaname = 'search' and relname = 'pipeline_jobs'`.execute(
      search.database.db,
    )
  ).rows[0]!.n;

it('vacuums its jobs table once it has finished enough records and has nothing to do', async () => {
  const before = await vacuums();
  const tenant = randomUUID();
  const now = new Date().toISOString();
  const changes = [0, 1, 2, 3].map((i) => {
    const p = product({ name: `Vacuumed washer ${i}` }) as { name: string; collection: string; record_type: string; collection_data: Record<string, unknown> };
    return {
      op: 'upsert' as const,
      active_generation: 1,
      document: {
        tenant_id: tenant,
        record_id: randomUUID(),
        version: 1,
        collection: p.collection,
        record_type: p.record_type,
        generation: 1,
        name: p.name,
        description: null,
        description_llm: p.name,
        collection_data: p.collection_data,
        source_type: 'api',
        status: 'active' as const,
        visibility: 'private' as const,
        updated_at: now,
      },
    };
  });
  await worker.enqueue(changes);
  await eventually(async () => expect(await worker.report()).toMatchObject({ queued: 0, running: 0 }));
  await eventually(async () => expect(await vacuums()).toBeGreaterThan(before));
});
