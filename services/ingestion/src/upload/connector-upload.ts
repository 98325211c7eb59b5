import { INGESTION_CONNECTOR_UPLOAD } from '@trove/contracts';
import { ByteMeter, bodyEncodingOf, decodedBody, ERRORS, handle, identityOf, parseInput, type Router } from '@trove/platform';
import { answer } from '../http';
import { submittedItems, type Ingestor } from '../ingest/ingestor';
import { parserFor } from '../parsers';

/**
 * INGESTION_CONNECTOR_UPLOAD: one connector pull's rows, NDJSON as the connector reads them, become one upload with
 * source_type `connector` (dedup, upsert by source_id and dead letters as for any upload; a row without a name_column
 * value is a dead letter). The body has no size limit of its own: the connector bounds what it holds, and the NDJSON
 * parser bounds each line. Only the connector service may call it; the body is read as it arrives.
 */
export function connectorUploadRoutes(router: Router, ingestor: Ingestor): void {
  handle(router, INGESTION_CONNECTOR_UPLOAD, async (req, res) => {
    const startedAt = performance.now();
    const identity = identityOf(req);
    if (identity.caller !== 'connector') throw ERRORS.notFound(`No route for ${req.method} ${req.path}`);
    const query = parseInput(INGESTION_CONNECTOR_UPLOAD.query, req.query, 'query');
    const body = decodedBody(req, bodyEncodingOf(req));
    const meter = new ByteMeter(Number.MAX_SAFE_INTEGER, () => new Error('unreachable'));
    body.pipe(meter);
    body.on('error', (err) => meter.destroy(err));
    const result = await ingestor.ingest(
      {
        identity,
        collection: query.collection,
        recordType: query.record_type,
        sourceType: 'connector',
        sourceName: query.source_name ?? null,
        requestId: req.id,
        startedAt,
      },
      submittedItems(parserFor('ndjson')(meter, {}), { nameColumn: query.name_column }),
      () => meter.digest(),
    );
    answer(res, INGESTION_CONNECTOR_UPLOAD, result);
  });
}
