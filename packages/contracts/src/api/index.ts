import type { Endpoint } from '../endpoint';
import { openApiDocument } from '../openapi';
import { AUTH_API } from './auth';
import { BILLING_API } from './billing';
import { CONNECTOR_API } from './connector';
import { GATEWAY_API } from './gateway';
import { INGESTION_API } from './ingestion';
import { MCP_API, MCP_TAG_DESCRIPTION, MCP_TOOL_SCHEMAS } from './mcp';
import { OPEN_API } from './open';
import { RECORDS_API } from './records';
import { SEARCH_API } from './search';

export * from './auth';
export * from './billing';
export * from './connector';
export * from './gateway';
export * from './ingestion';
export * from './mcp';
export * from './open';
export * from './records';
export * from './search';
export * from './service-app';

/**
 * Every endpoint a caller outside the system can reach, declared once: what the gateway routes and checks access by,
 * what each service registers its handler from, and what the endpoint reference is written from.
 */
export const API_ENDPOINTS: readonly Endpoint[] = [
  ...GATEWAY_API,
  ...AUTH_API,
  ...RECORDS_API,
  ...INGESTION_API,
  ...SEARCH_API,
  ...OPEN_API,
  ...BILLING_API,
  ...CONNECTOR_API,
  ...MCP_API,
];

const DESCRIPTION = [
  'Trove stores structured records in collections and searches them: full text, exact identifiers (EAN/GTIN, DIN/ISO, SKUs), filters, sorting and aggregation.',
  '',
  'Calls under /api/v1 take an API key (`Authorization: Bearer <key>`) whose scopes (search, upload, records, admin) decide what it may call; the portal routes take a portal sign-in token instead. The Open API under /open/v1 searches public records without a key.',
  '',
  'A refusal answers `{"detail": "..."}`; a request that does not validate answers 422 with `detail` a list of `{loc, msg, type, input, ctx}`. Limited routes carry X-RateLimit-Limit, -Remaining and -Reset, and a 429 carries Retry-After.',
].join('\n');

/** The version of the API this document describes (the /api/v1 and /open/v1 roots). */
const API_VERSION = '1.0.0';

const documents: { all?: Record<string, unknown>; open?: Record<string, unknown> } = {};

/**
 * The OpenAPI 3.1 document of every public endpoint (`all`, GET /api/v1/openapi.json), or of the Open API alone
 * (`open`, GET /open/v1/openapi.json), written once from the declarations.
 */
export function referenceDocument(part: 'all' | 'open'): Record<string, unknown> {
  if (part === 'all') {
    return (documents.all ??= openApiDocument({
      title: 'Trove API',
      version: API_VERSION,
      description: DESCRIPTION,
      endpoints: API_ENDPOINTS,
      tagDescriptions: { mcp: MCP_TAG_DESCRIPTION },
      schemas: MCP_TOOL_SCHEMAS,
    }));
  }
  return (documents.open ??= openApiDocument({
    title: 'Trove Open API',
    version: API_VERSION,
    description: 'Public records of every tenant, searched without a key. Requests are limited per client address (X-RateLimit-* headers, 429 with Retry-After).',
    endpoints: API_ENDPOINTS.filter((e) => e.exposed?.roots.includes('/open/v1')),
  }));
}
