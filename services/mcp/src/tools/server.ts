import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MCP_INSTRUCTIONS } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import type { Backend } from '../backend';
import { registerAggregate } from './aggregate';
import { registerCollections } from './collections';
import { registerList } from './list';
import { registerLookup } from './lookup';
import { registerResources } from './resources';
import { registerSchema } from './schema';
import { registerSearch } from './search';

export const SERVER_INFO = { name: 'trove', version: '0.1.0' };

/** An MCP server with every tool and resource, bound to one tenant's backend (one per request: the transport is stateless). */
export function createMcpServer(backend: Backend, logger: Logger): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: MCP_INSTRUCTIONS });
  registerCollections(server, backend, logger);
  registerSchema(server, backend, logger);
  registerSearch(server, backend, logger);
  registerAggregate(server, backend, logger);
  registerList(server, backend, logger);
  registerLookup(server, backend, logger);
  registerResources(server, backend);
  // Registering tools and resources makes the SDK claim listChanged for both. Stateless, a server lives for one request
  // and has no stream to send that notification on (nor would its lists change), so it says it sends none.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}
