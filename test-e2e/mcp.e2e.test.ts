import { randomUUID } from 'node:crypto';
import { mcpToolSchemaName } from '@trove/contracts';
import { bearer, useTrove } from './support/system';

jest.setTimeout(90_000);

describe('MCP through the gateway', () => {
  const trove = useTrove();
  const api = trove.api;
  let searchKey: string;
  let otherKey: string;

  /**
   * One JSON-RPC call as an MCP Streamable HTTP client makes it: the answer arrives as a server-sent event, which the
   * gateway must stream through. (The official SDK client is exercised against the service in services/mcp/test.)
   */
  async function rpc(key: string, method: string, params: unknown = {}): Promise<{ status: number; contentType: string; message?: any }> {
    const res = await fetch(`${trove.baseUrl}/mcp/`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text)?.[1];
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', message: data ? JSON.parse(data) : undefined };
  }

  const callTool = async (key: string, name: string, args: Record<string, unknown>) => (await rpc(key, 'tools/call', { name, arguments: args })).message.result;

  beforeAll(async () => {
    const tenant = randomUUID();
    const admin = await trove.keyFor(tenant, ['admin']);
    searchKey = await trove.keyFor(tenant, ['search']);
    otherKey = await trove.keyFor(randomUUID(), ['admin']);
    const created = await api('POST', '/api/v1/records', {
      headers: bearer(admin),
      body: { name: 'Hex bolt M8x40 stainless', collection: 'parts', record_type: 'product', collection_data: { material: 'steel', price: 0.42 } },
    });
    expect(created.status).toBe(201);
  });

  it('speaks MCP Streamable HTTP with an API key, streamed through the gateway, scoped to the key tenant', async () => {
    const init = await rpc(searchKey, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } });
    expect(init.status).toBe(200);
    expect(init.contentType).toContain('text/event-stream');
    expect(init.message.result.serverInfo.name).toBe('trove');

    const tools = await rpc(searchKey, 'tools/list');
    expect(tools.message.result.tools).toHaveLength(6);

    const found = (await callTool(searchKey, 'trove_search', { collection: 'parts', query: 'hex bolt' })).content[0].text as string;
    expect(found).toContain('Hex bolt M8x40 stainless');
    const id = /\| ([0-9a-f-]{36}) \|$/m.exec(found)![1]!;
    expect((await callTool(searchKey, 'trove_lookup', { record_id: id })).content[0].text).toContain('material: steel');

    const foreign = await callTool(otherKey, 'trove_lookup', { record_id: id });
    expect(foreign.isError).toBe(true);
  });

  it('lists over MCP exactly the tools the served API reference describes, each with the input schema it holds', async () => {
    const reference = (await api('GET', '/api/v1/openapi.json')).body;
    const schemas = reference.components.schemas as Record<string, unknown>;
    const described = (reference.tags as Array<{ name: string; description?: string }>).find((t) => t.name === 'mcp')!.description!;
    const tools = (await rpc(searchKey, 'tools/list')).message.result.tools as Array<{ name: string; title: string; description: string; annotations: { readOnlyHint?: boolean }; inputSchema: Record<string, unknown> }>;
    expect(Object.keys(schemas).filter((name) => name.startsWith('McpTool_')).sort()).toEqual(tools.map((t) => mcpToolSchemaName(t.name)).sort());
    expect(described.split('\n').filter((line) => line.startsWith('| `trove_'))).toEqual(
      tools.map((t) => `| \`${t.name}\` | ${t.title} | ${t.annotations.readOnlyHint ? 'yes' : 'no'} | \`${mcpToolSchemaName(t.name)}\` | ${t.description} |`),
    );
    for (const { name, inputSchema } of tools) {
      // The SDK writes JSON Schema draft-07 and the reference 2020-12; for these schemas only the $schema they name differs.
      const { $schema: _dialect, ...schema } = inputSchema;
      expect([name, schema]).toEqual([name, schemas[mcpToolSchemaName(name)]]);
    }
  });

  it('refuses a request without a valid key', async () => {
    expect((await api('POST', '/mcp/', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).status).toBe(401);
    expect((await rpc(`sk_live_${'0'.repeat(64)}`, 'tools/list')).status).toBe(401);
  });
});
