import { migrate } from '@trove/db';
import { configuredScheduler, createMetrics, yieldToOthers } from '@trove/platform';
import { Counter, Histogram } from 'prom-client';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { AsyncUploads } from './ingest/async-uploads';
import { Ingestor } from './ingest/ingestor';
import { UploadService } from './ingest/upload-service';
import { UploadWatch } from './ingest/upload-watch';
import { uploadUsage } from './ingest/usage';
import { migrations } from './migrations';
import { RecordsPort } from './records';
import type { Db } from './schema';
import { StreamBuffers } from './stream/stream-buffers';

/** Records per chunk while more than one tenant writes (measured in bench/RESULTS.md, issue 26's upload scenario). */
const SHARED_CHUNK_SIZE = 250;
/** How recently another tenant must have written for the chunks to be the shared size. */
const SHARED_WINDOW_MS = 5_000;

/** The ingestion service: batch, file, PDF, stream and webhook uploads, written to records in chunks. */
export const ingestionModule: ServiceModule = {
  name: 'ingestion',
  dependsOn: ['records'],
  async init(ctx) {
    const { config, logger } = ctx;
    await migrate(ctx.database, 'ingestion', migrations);
    // The one place the untyped handle gets the ingestion schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const client = ctx.client('records');
    // Every call to records goes through this one port over the one client (one circuit breaker).
    const records = new RecordsPort(client);
    const metrics = createMetrics('ingestion', ctx.registry);
    const registers = [metrics.registry];
    // Chunks wait for their tenant's turn as long as an upload may take, never refused for a full queue: an upload
    // under way is not cut short; new uploads are what the gateway shares out.
    const chunkShares = configuredScheduler(config, {
      name: 'ingest_chunks',
      what: 'upload',
      concurrency: config.SCHEDULER_INGEST_CONCURRENCY,
      maxWaitMs: config.UPLOAD_TIMEOUT_MS,
      unboundedQueues: true,
      registry: metrics.registry,
    });
    const ingestor = new Ingestor({
      db,
      writer: records,
      logger,
      // While another tenant writes too, chunks are smaller, so each write (and the work around it) holds the event
      // loop and the database for less time at once; alone, an upload keeps the chunks that write it fastest.
      chunkSize: () => (chunkShares.recentKeys(SHARED_WINDOW_MS) > 1 ? Math.min(config.INGEST_CHUNK_SIZE, SHARED_CHUNK_SIZE) : config.INGEST_CHUNK_SIZE),
      backlogThreshold: config.INDEXING_BACKLOG_THRESHOLD,
      announceCompleted: uploadUsage(ctx.bus),
      chunkShares,
      stepAside: yieldToOthers,
      metrics: {
        records: new Counter({ name: 'trove_records_ingested_total', help: 'Records uploads stored, by outcome (created, updated, skipped as unchanged)', labelNames: ['outcome'] as const, registers }),
        deadLettered: new Counter({
          name: 'trove_records_dead_lettered_total',
          help: 'Records of uploads kept as dead letters, by reason (invalid, refused by the plan, unwritten, unconfirmed)',
          labelNames: ['reason'] as const,
          registers,
        }),
        uploads: new Histogram({
          name: 'trove_upload_duration_seconds',
          help: 'Time from an upload request to its end, by source type and outcome',
          labelNames: ['source_type', 'status'] as const,
          buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
          registers,
        }),
      },
    });
    const streams = new StreamBuffers({
      ingestor,
      logger: logger.child({ component: 'stream-buffers' }),
      limit: config.STREAM_BUFFER_LIMIT,
      chunkSize: config.INGEST_CHUNK_SIZE,
      intervalMs: config.STREAM_FLUSH_INTERVAL_MS,
    });
    const later = new AsyncUploads({ ingestor, logger: logger.child({ component: 'async-uploads' }), graceMs: config.SHUTDOWN_TIMEOUT_MS });
    const watch = new UploadWatch({
      db,
      ingestor,
      logger: logger.child({ component: 'upload-watch' }),
      staleSeconds: config.UPLOAD_STALE_SECONDS,
    });
    return {
      app: buildApp({ config, logger, metrics, readiness: ctx.readiness, ingestor, later, uploads: new UploadService(db), streams, records }),
      async start() {
        streams.start();
        watch.start();
      },
      // Runs after the HTTP server has drained and before records stops (it depends on records), so what the stream
      // buffers hold is written before the process goes, and the uploads answered asynchronously finish (or, past
      // SHUTDOWN_TIMEOUT_MS, are stored as failed with what they wrote) while records still answers.
      async stop() {
        await Promise.all([streams.stop(), later.stop()]);
        await watch.stop();
        client.shutdown();
      },
    };
  },
};
