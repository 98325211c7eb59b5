import { z } from 'zod';
import { endpoint, type Endpoint, type Exposure } from '../endpoint';

/*
 * MCP over Streamable HTTP, stateless: each POST carries JSON-RPC 2.0 messages (MCP's initialize, tools/list,
 * tools/call, resources/read, …) and is answered on its own. The MCP SDK's transport reads and answers them: a body
 * that is not JSON-RPC, or a client that does not accept both application/json and text/event-stream, is answered with
 * a JSON-RPC error (400, 406, 415), not `{detail}`. GET and DELETE answer 405: there is no session to stream or end.
 */

/** A JSON-RPC request id. */
const jsonRpcId = z.union([z.string(), z.number().int()]);

/** One JSON-RPC 2.0 message a client sends: a request (with an id) or a notification; described loosely. */
const jsonRpcMessage = z.looseObject({
  jsonrpc: z.literal('2.0'),
  /** The MCP method (`initialize`, `tools/call`, …); absent from a response the client sends back. */
  method: z.string().optional(),
  id: jsonRpcId.optional(),
  params: z.unknown().optional(),
});

/** One JSON-RPC 2.0 response: a result, or an error with its code. */
const jsonRpcResponse = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: jsonRpcId.nullable(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** The gateway forwards /mcp as it is (no version root) to a key holding the search scope. */
const mcpExposure: Exposure = { roots: [''], access: { kind: 'key', scope: 'search' } };

export const MCP = endpoint({
  service: 'mcp',
  method: 'POST',
  path: '/mcp',
  summary: "MCP (Streamable HTTP, stateless): tools and resources to find and read the key's tenant's records",
  exposed: mcpExposure,
  body: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]),
  /**
   * The responses to the requests, as a server-sent event stream (one JSON-RPC response per `message` event); a body
   * of notifications only is answered 202 without a body.
   */
  produces: ['text/event-stream'],
  answer: jsonRpcResponse,
});

/** The same endpoint spelled with a trailing slash, as MCP clients are often configured. */
export const MCP_SLASH = endpoint({ ...MCP, path: '/mcp/', summary: 'MCP at /mcp/, as at /mcp' });

/** Every public endpoint the mcp service answers. */
export const MCP_API: readonly Endpoint[] = [MCP, MCP_SLASH];
