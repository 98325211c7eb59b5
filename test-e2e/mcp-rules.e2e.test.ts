import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpRules } from '../services/mcp/test/rules';
import { bearer, client, createKey, startSuiteSystem } from './support/system';

jest.setTimeout(120_000);

/** Every MCP case with the official SDK client over Streamable HTTP, through the gateway with real API keys. */
mcpRules(async () => {
  const trove = await startSuiteSystem();
  const call = client(trove.baseUrl);
  const keys = new Map<string, string>();
  const keyOf = async (tenantId: string) => {
    let key = keys.get(tenantId);
    if (!key) {
      key = await createKey(call, tenantId, ['search', 'records']);
      keys.set(tenantId, key);
    }
    return key;
  };
  const clients: Client[] = [];
  return {
    async connect(tenantId) {
      const mcp = new Client({ name: 'trove-e2e', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${trove.baseUrl}/mcp/`), { requestInit: { headers: bearer(await keyOf(tenantId)) } }));
      clients.push(mcp);
      return mcp;
    },
    async create(tenantId, body) {
      const res = await call('POST', '/api/v1/records', { headers: bearer(await keyOf(tenantId)), body });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
      return { id: res.body.id as string };
    },
    async status(method, tenantId) {
      return (await call(method, '/mcp/', { headers: bearer(await keyOf(tenantId)) })).status;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await trove.stop();
    },
  };
}, randomUUID);
