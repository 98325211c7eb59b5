import { migrate } from '@trove/db';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { Ingestor } from './ingestor';
import { migrations } from './migrations';
import { RecordsPipeline } from './records-pipeline';
import { RecordsReplace } from './records-replace';
import { HttpRecordsWriter } from './records-writer';
import type { Db } from './store/schema';
import { StreamBuffers } from './stream-buffers';
import { UploadService } from './upload-service';
import { UploadWatch } from './upload-watch';
import { uploadUsage } from './usage';

/** The ingestion service: batch, file, PDF, stream and webhook uploads, written to records in chunks. */
export const ingestionModule: ServiceModule = {
  name: 'ingestion',
  dependsOn: ['records'],
  async init(ctx) {
    const { config, logger } = ctx;
    await migrate(ctx.database, 'ingestion', migrations);
    // The one place the untyped handle gets the ingestion schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const records = ctx.client('records');
    const ingestor = new Ingestor({
      db,
      writer: new HttpRecordsWriter(records),
      logger,
      chunkSize: config.INGEST_CHUNK_SIZE,
      backlogThreshold: config.INDEXING_BACKLOG_THRESHOLD,
      announceCompleted: uploadUsage(ctx.bus),
    });
    const streams = new StreamBuffers({
      ingestor,
      logger: logger.child({ component: 'stream-buffers' }),
      limit: config.STREAM_BUFFER_LIMIT,
      chunkSize: config.INGEST_CHUNK_SIZE,
      intervalMs: config.STREAM_FLUSH_INTERVAL_MS,
    });
    const watch = new UploadWatch({
      db,
      ingestor,
      logger: logger.child({ component: 'upload-watch' }),
      staleSeconds: config.UPLOAD_STALE_SECONDS,
    });
    return {
      app: buildApp({ config, logger, readiness: ctx.readiness, ingestor, uploads: new UploadService(db), streams, pipeline: new RecordsPipeline(records), replace: new RecordsReplace(records) }),
      async start() {
        streams.start();
        watch.start();
      },
      // Runs after the HTTP server has drained and before records stops (it depends on records), so what the stream
      // buffers hold is written before the process goes.
      async stop() {
        await streams.stop();
        await watch.stop();
        records.shutdown();
      },
    };
  },
};
