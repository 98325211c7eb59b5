/**
 * Ingestion takes one connector pull's rows here, as NDJSON in the request body (one JSON object per line, written
 * page by page as the connector reads them), and ingests them as one upload with source_type `connector`. Query:
 * `collection`, `record_type`, `source_name` (the connector's name), `name_column` (optional, the row field holding
 * the record's name, `name` by default). Only the connector service calls it; it answers 201 with the upload result.
 */
export const INGESTION_CONNECTOR_UPLOAD_PATH = '/internal/ingestion/connector-upload';
