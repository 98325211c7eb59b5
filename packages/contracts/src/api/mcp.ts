import { z } from 'zod';
import { endpoint, type Endpoint, type Exposure } from '../endpoint';
import { MCP_INSTRUCTIONS, MCP_RESOURCES, MCP_TOOLS } from '../mcp-tools';

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

/** A refusal of the MCP transport (a JSON-RPC error without an id), or of what reads the body before it (`{detail}`). */
const transportRefusal = z.union([jsonRpcResponse, z.object({ detail: z.string() })]);

/** The gateway forwards /mcp as it is (no version root) to a key holding the search scope. */
const mcpExposure: Exposure = { roots: [''], access: { kind: 'key', scope: 'search' } };

export const MCP = endpoint({
  service: 'mcp',
  method: 'POST',
  path: '/mcp',
  summary: "MCP (Streamable HTTP, stateless): tools and resources to find and read the key's tenant's records (listed under the mcp tag)",
  exposed: mcpExposure,
  body: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]),
  /**
   * The responses to the requests, as a server-sent event stream (one JSON-RPC response per `message` event); a body
   * of notifications only is answered 202 without a body.
   */
  produces: ['text/event-stream'],
  answer: jsonRpcResponse,
  example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trove_search', arguments: { collection: 'products', query: 'hex bolt m8' } } },
  otherAnswers: {
    202: { description: 'A body of notifications (or responses) only: accepted, nothing to answer' },
    // The transport's own refusals are JSON-RPC errors; what the gateway refuses before it (a body it cannot read) is `{detail}`.
    400: { description: 'Not JSON-RPC: a JSON-RPC error (-32700 parse error, -32600 invalid request), or `{detail}`', answer: transportRefusal },
    406: { description: 'The client does not accept both application/json and text/event-stream: a JSON-RPC error', answer: transportRefusal },
    415: { description: 'The body is not application/json: a JSON-RPC error, or `{detail}`', answer: transportRefusal },
  },
});

/** The same endpoint spelled with a trailing slash, as MCP clients are often configured. */
export const MCP_SLASH = endpoint({ ...MCP, path: '/mcp/', summary: 'MCP at /mcp/, as at /mcp' });

/** Every public endpoint the mcp service answers. */
export const MCP_API: readonly Endpoint[] = [MCP, MCP_SLASH];

/** The name of a tool's input schema among the reference's component schemas. */
export const mcpToolSchemaName = (toolName: string): string => `McpTool_${toolName}`;

/** Every tool's input schema, by its name in the reference, as the tool validates its arguments with. */
export const MCP_TOOL_SCHEMAS: Readonly<Record<string, z.ZodType>> = Object.fromEntries(MCP_TOOLS.map((tool) => [mcpToolSchemaName(tool.name), tool.inputSchema]));

/** A value in one cell of a markdown table. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/**
 * The reference's description of the mcp tag: how to connect, then every tool and resource template, written from
 * their declarations as the mcp service registers them.
 */
export const MCP_TAG_DESCRIPTION = [
  "MCP (Model Context Protocol) for AI agents: tools and resources that find and read the records of the key's tenant.",
  '',
  "**Connecting.** `POST /mcp` (or `/mcp/`) speaks MCP's Streamable HTTP transport, statelessly: each POST carries " +
    'JSON-RPC 2.0 messages (`initialize`, `tools/list`, `tools/call`, `resources/read`, …) and is answered on its own as a ' +
    'server-sent event stream (202 without a body for notifications alone). There is no session: no `Mcp-Session-Id`, and ' +
    'GET and DELETE answer 405. A request must accept both `application/json` and `text/event-stream`, and carry an API ' +
    "key with the `search` scope (`Authorization: Bearer <key>`); the tools read that key's tenant's records only.",
  '',
  '```sh',
  'curl -N https://<host>/mcp -H "Authorization: Bearer $KEY" -H \'content-type: application/json\' \\',
  '  -H \'accept: application/json, text/event-stream\' -d \'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\'',
  '```',
  '',
  `The server's instructions to a client (\`initialize\`): ${MCP_INSTRUCTIONS}`,
  '',
  "**Tools** (`tools/list`, `tools/call`). Each input schema is closed (`additionalProperties: false`): an unknown " +
    'argument is a tool error naming it and the valid ones. A call with bad arguments answers a tool error saying what to fix.',
  '',
  '| Tool | Title | Read-only | Input schema (in `#/components/schemas`) | Description |',
  '| --- | --- | --- | --- | --- |',
  ...MCP_TOOLS.map(
    (tool) =>
      `| \`${tool.name}\` | ${cell(tool.title)} | ${tool.annotations.readOnlyHint ? 'yes' : 'no'} | ` +
      `\`${mcpToolSchemaName(tool.name)}\` | ${cell(tool.description)} |`,
  ),
  '',
  '**Resource templates** (`resources/templates/list`, `resources/read`):',
  '',
  '| URI template | Title | Media type | Description |',
  '| --- | --- | --- | --- |',
  ...MCP_RESOURCES.map((r) => `| \`${r.uriTemplate}\` | ${cell(r.title)} | ${r.mimeType} | ${cell(r.description)} |`),
].join('\n');
