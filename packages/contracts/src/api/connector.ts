import { z } from 'zod';
import { CONNECTOR_REDACTED, CONNECTOR_TYPES, connectorCreateBody } from '../connector';
import { endpoint, withKey, type Endpoint } from '../endpoint';

const instant = z.iso.datetime();
const count = z.number().int().nonnegative();
const pullStatus = z.enum(['completed', 'failed']);

/** A path naming one of the caller's tenant's connectors. */
export const connectorParams = z.object({ connector_id: z.guid() });

/** A connector as every answer shows it: its connection settings never, CONNECTOR_REDACTED in their place. */
export const connectorView = z.object({
  id: z.guid(),
  name: z.string(),
  connector_type: z.enum(CONNECTOR_TYPES),
  collection: z.string(),
  record_type: z.string(),
  connection_config: z.literal(CONNECTOR_REDACTED),
  query: z.string(),
  name_column: z.string().nullable(),
  schedule: z.string().nullable(),
  batch_size: z.number().int().positive(),
  created_at: instant,
  /** When the last successful pull started: what `:last_pull` stands for in the next one's query. */
  last_pull_at: instant.nullable(),
  last_pull_status: pullStatus.nullable(),
});

export const CONNECTOR_CREATE = endpoint({
  service: 'connector',
  method: 'POST',
  path: '/connectors',
  summary: 'Creates a connector: a PostgreSQL, MySQL, MongoDB or Neo4j source, its query, target collection and optional schedule',
  exposed: withKey('admin'),
  body: connectorCreateBody,
  example: {
    name: 'erp products',
    connector_type: 'postgresql',
    connection_config: { dsn: 'postgresql://reader:secret@erp.internal:5432/erp' },
    collection: 'products',
    record_type: 'product',
    query: 'SELECT sku AS source_id, title AS name, price, ean FROM products WHERE updated_at > :last_pull',
    schedule: '*/15 * * * *',
  },
  status: 201,
  answer: connectorView,
});

export const CONNECTOR_LIST = endpoint({
  service: 'connector',
  method: 'GET',
  path: '/connectors',
  summary: "Lists the caller's tenant's connectors, oldest first, their connection settings redacted",
  exposed: withKey('admin'),
  answer: z.array(connectorView),
});

export const CONNECTOR_DELETE = endpoint({
  service: 'connector',
  method: 'DELETE',
  path: '/connectors/:connector_id',
  summary: 'Deletes a connector and its stored credentials; records it pulled stay',
  exposed: withKey('admin'),
  params: connectorParams,
  status: 204,
  answer: z.undefined(),
  refusals: [404],
});

export const CONNECTOR_PULL = endpoint({
  service: 'connector',
  method: 'POST',
  path: '/connectors/:connector_id/pull',
  summary: "Pulls a connector's source now and ingests the rows as one upload; answers the pull's result, completed or failed",
  exposed: withKey('admin'),
  params: connectorParams,
  answer: z.object({
    status: pullStatus,
    records_pulled: count,
    records_uploaded: count,
    duplicates_skipped: count,
    /** Rows ingestion turned into dead letters (no name, a field it refuses): GET /uploads/{upload_id}/errors. */
    records_rejected: count,
    duration_seconds: z.number().nonnegative(),
    /** The upload the pulled rows became; absent when no row was read. */
    upload_id: z.guid().optional(),
    /** Why the pull failed, free of credentials. */
    error: z.string().optional(),
  }),
  // 409: another pull of the connector is running.
  refusals: [404, 409],
});

/** Every public endpoint the connector service answers. */
export const CONNECTOR_API: readonly Endpoint[] = [CONNECTOR_CREATE, CONNECTOR_LIST, CONNECTOR_DELETE, CONNECTOR_PULL];
