import type { Endpoint } from '../endpoint';
import { AUTH_API } from './auth';
import { BILLING_API } from './billing';
import { CONNECTOR_API } from './connector';
import { GATEWAY_API } from './gateway';
import { INGESTION_API } from './ingestion';
import { MCP_API } from './mcp';
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
