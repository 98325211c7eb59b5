import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MCP, MCP_SLASH } from '@trove/contracts';
import { handle, identityOf, requireScope, type Router } from '@trove/platform';
import { createMcpServer } from '../tools/server';
import type { Backends } from '../backend';

/**
 * MCP and MCP_SLASH speak MCP Streamable HTTP statelessly: each request gets its own server and transport bound to the
 * caller's tenant, so no session lives in a process and any replica can answer. Without sessions there is no
 * server-initiated stream to GET and nothing to DELETE, so those answer 405 as the SDK's stateless examples do.
 */
export function mcpRoutes(router: Router, upstreams: Backends): void {
  // The SDK's transport reads the JSON-RPC body itself and answers a malformed one with a JSON-RPC error, and it
  // writes the answer (an event stream) itself: the handler is registered with handle, and the body is not parsed here.
  for (const e of [MCP, MCP_SLASH]) {
    handle(router, e, requireScope('search'), async (req, res) => {
      const server = createMcpServer(upstreams.for(identityOf(req), req.id), req.log);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // The platform's JSON parser has read the body already; the transport takes it as parsed.
      await transport.handleRequest(req, res, req.body);
    });
  }

  router.all([MCP.path, MCP_SLASH.path], (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send requests with POST.' }, id: null });
  });
}
