import { z } from 'zod';
import { INGESTION_CONNECTOR_UPLOAD_PATH, collectionName, recordType, sourceName } from '@trove/contracts';
import { bodyEncodingOf, decodedBody, ERRORS, identityOf, parseInput, type Router } from '@trove/platform';
import { ByteMeter } from '../byte-meter';
import { parserFor } from '../domain/parsers';
import { submittedItems, type Ingestor } from '../ingestor';

const connectorQuery = z.object({
  collection: collectionName,
  record_type: recordType,
  source_name: sourceName.min(1).optional(),
  name_column: z.string().trim().min(1).max(200).optional(),
});

/**
 * INGESTION_CONNECTOR_UPLOAD_PATH: one connector pull's rows, NDJSON as the connector reads them, become one upload
 * with source_type `connector` (dedup, upsert by source_id and dead letters as for any upload; a row without a
 * name_column value is a dead letter). The body has no size limit of its own: the connector bounds what it holds, and
 * the NDJSON parser bounds each line. Only the connector service may call it.
 */
export function connectorUploadRoutes(router: Router, ingestor: Ingestor): void {
  router.post(INGESTION_CONNECTOR_UPLOAD_PATH, async (req, res) => {
    const startedAt = performance.now();
    const identity = identityOf(req);
    if (identity.caller !== 'connector') throw ERRORS.notFound(`No route for ${req.method} ${req.path}`);
    const query = parseInput(connectorQuery, req.query, 'query');
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
    res.status(201).json(result);
  });
}
