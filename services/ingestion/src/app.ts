import { INGESTION_CONNECTOR_UPLOAD } from '@trove/contracts';
import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import type { Ingestor } from './ingestor';
import type { RecordsPipeline } from './records-pipeline';
import type { RecordsReplace } from './records-replace';
import { batchRoutes } from './routes/batch';
import { connectorUploadRoutes } from './routes/connector-upload';
import { fileRoutes } from './routes/files';
import { olderIngestRoutes } from './routes/older';
import { pipelineRoutes } from './routes/pipeline';
import { replaceRoutes } from './routes/replace';
import { streamRoutes } from './routes/stream';
import { uploadRoutes } from './routes/uploads';
import { webhookRoutes } from './routes/webhooks';
import type { StreamBuffers } from './stream-buffers';
import type { UploadService } from './upload-service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The service's metrics (its HTTP metrics and its chunk scheduler's); made by the app when absent. */
  metrics?: HttpMetrics;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  ingestor: Ingestor;
  uploads: UploadService;
  streams: StreamBuffers;
  pipeline: RecordsPipeline;
  replace: RecordsReplace;
}

/** Paths that begin with `path` (which names no parameter). */
function startsWith(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/** Composes the ingestion HTTP app from its dependencies; it never listens. */
export function buildApp({ config, logger, metrics, readiness, ingestor, uploads, streams, pipeline, replace }: AppDeps): ReturnType<typeof createServiceApp> {
  return createServiceApp({
    name: 'ingestion',
    logger,
    metrics,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    jsonLimit: config.JSON_BODY_LIMIT,
    // Upload bodies are read by their routes: batch and webhook need the raw bytes (hash, signature) and a larger
    // limit, files and streams are parsed as they arrive.
    rawBodyPaths: [/^\/upload\//, /^\/ingest\//, /^\/webhooks\//, /^\/portal\/upload\//, startsWith(INGESTION_CONNECTOR_UPLOAD.path)],
    readiness,
    routes: (router) => {
      const streamLimits = { maxBytes: config.UPLOAD_MAX_BYTES, bufferLimit: config.STREAM_BUFFER_LIMIT };
      batchRoutes(router, ingestor);
      fileRoutes(router, ingestor, config.UPLOAD_MAX_BYTES);
      streamRoutes(router, streams, streamLimits);
      webhookRoutes(router, ingestor, config.WEBHOOK_SECRET);
      olderIngestRoutes(router, ingestor, uploads, { maxBytes: config.UPLOAD_MAX_BYTES, webhookSecret: config.WEBHOOK_SECRET });
      uploadRoutes(router, uploads);
      pipelineRoutes(router, uploads, pipeline);
      replaceRoutes(router, ingestor, replace, config.UPLOAD_MAX_BYTES);
      connectorUploadRoutes(router, ingestor);
    },
  });
}
