import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Scope } from '@trove/platform';
import { startTestSystem, testClient, type TestDatabase, type TestService } from '@trove/testing';
import { recordsModule } from '@trove/records-service';
import { searchModule } from '@trove/search-service';
import { mcpModule } from '../src';

export interface McpSystem {
  db: TestDatabase;
  records: TestService;
  search: TestService;
  mcp: TestService;
  url: string;
  /** An MCP client connected as one tenant (on a plan, when given), as the gateway would forward it. */
  connect(tenantId: string, scopes?: Scope[], plan?: string): Promise<Client>;
  /** Creates a record through the records app for a tenant; answers once search has indexed it. */
  create(tenantId: string, body: Record<string, unknown>): Promise<{ id: string }>;
  stop(): Promise<void>;
}

/** Records, search and mcp on one fresh PostgreSQL database, each on a port of its own: mcp calls the others over HTTP. */
export async function startMcpSystem(): Promise<McpSystem> {
  const sys = await startTestSystem([recordsModule, searchModule, mcpModule], { listen: ['records', 'search', 'mcp'] });
  const [records, search, mcp] = [sys.service('records'), sys.service('search'), sys.service('mcp')];
  const url = `${sys.url('mcp')}/mcp/`;
  const clients: Client[] = [];
  return {
    db: sys.db,
    records,
    search,
    mcp,
    url,
    async connect(tenantId, scopes = ['search'], plan) {
      const client = new Client({ name: 'trove-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: mcp.as(tenantId, scopes, undefined, undefined, plan) } }));
      clients.push(client);
      return client;
    },
    async create(tenantId, body) {
      const res = await testClient(records, tenantId, ['records']).post('/records', body);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as string };
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await sys.stop();
    },
  };
}

export function newTenant(): string {
  return randomUUID();
}

export { textOf } from './rules';
