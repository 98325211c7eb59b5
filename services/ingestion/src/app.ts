import { INGESTION_CONNECTOR_UPLOAD } from '@trove/contracts';
import { createServiceApp, type Config, type HttpMetrics, type Logger, type ReadinessCheck } from '@trove/platform';
import type { AsyncUploads } from './ingest/async-uploads';
import type { Ingestor } from './ingest/ingestor';
import type { UploadService } from './ingest/upload-service';
import { pipelineRoutes } from './older/pipeline';
import { olderIngestRoutes } from './older/routes';
import type { RecordsPort } from './records';
import { replaceRoutes } from './replace/routes';
import { streamRoutes } from './stream/routes';
import type { StreamBuffers } from './stream/stream-buffers';
import { batchRoutes } from './upload/batch';
import { connectorUploadRoutes } from './upload/connector-upload';
import { fileRoutes } from './upload/files';
import { uploadStatusRoutes } from './upload/status';
import { webhookRoutes } from './upload/webhooks';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The service's metrics (its HTTP metrics and its chunk scheduler's); made by the app when absent. */
  metrics?: HttpMetrics;
  /** Checks of the service's database and the event bus (ServiceContext.readiness), for /health/ready. */
  readiness: Record<string, ReadinessCheck>;
  ingestor: Ingestor;
  /** The uploads answered asynchronously (`Prefer: respond-async`), written in the background by the ingestor. */
  later: AsyncUploads;
  uploads: UploadService;
  streams: StreamBuffers;
  /** Records, for the older pipeline routes and a replace's staging (the ingestor writes through it too). */
  records: RecordsPort;
}

/** Paths that begin with `path` (which names no parameter). */
function startsWith(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/** Composes the ingestion HTTP app from its dependencies; it never listens. */
export function buildApp({ config, logger, metrics, readiness, ingestor, later, uploads, streams, records }: AppDeps): ReturnType<typeof createServiceApp> {
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
      // Each feature registers its own routes: the current vocabulary's uploads and their status, the stream, the
      // older vocabulary's routes (its stream and status included), the replace and the connector's internal upload.
      batchRoutes(router, ingestor, later);
      fileRoutes(router, { ingestor, later, maxBytes: config.UPLOAD_MAX_BYTES });
      streamRoutes(router, streams, later, streamLimits);
      webhookRoutes(router, ingestor, later, config.WEBHOOK_SECRET);
      olderIngestRoutes(router, ingestor, later, uploads, streams, { maxBytes: config.UPLOAD_MAX_BYTES, webhookSecret: config.WEBHOOK_SECRET, stream: streamLimits });
      uploadStatusRoutes(router, uploads);
      pipelineRoutes(router, uploads, records);
      replaceRoutes(router, ingestor, later, records, config.UPLOAD_MAX_BYTES);
      connectorUploadRoutes(router, ingestor);
    },
  });
}
