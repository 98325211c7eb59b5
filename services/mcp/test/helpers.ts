import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { listen, type RunningServer, type Scope } from '@trove/platform';
import { createTestDatabase, startTestService, type TestDatabase, type TestService } from '@trove/testing';
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

/** Records, search and mcp on one fresh PostgreSQL database; records and search listen so mcp can call them. */
export async function startMcpSystem(): Promise<McpSystem> {
  const db = await createTestDatabase();
  const records = await startTestService(recordsModule, { database: db.database, config: { INDEXING_WAIT_MS: '5000' } });
  const search = await startTestService(searchModule, { database: db.database });
  const servers: RunningServer[] = [];
  const serve = async (svc: TestService) => {
    const s = await listen(svc.instance.app, 0, '127.0.0.1');
    servers.push(s);
    return `http://127.0.0.1:${s.port}`;
  };
  const recordsUrl = await serve(records);
  const searchUrl = await serve(search);
  const mcp = await startTestService(mcpModule, { database: db.database, config: { RECORDS_URL: recordsUrl, SEARCH_URL: searchUrl } });
  const url = `${await serve(mcp)}/mcp/`;
  const clients: Client[] = [];
  return {
    db,
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
      const res = await request(records.instance.app).post('/records').set(records.as(tenantId, ['records'])).send(body);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as string };
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all(servers.map((s) => s.close(1000)));
      await mcp.stop();
      await search.stop();
      await records.stop();
      await db.drop();
    },
  };
}

export function newTenant(): string {
  return randomUUID();
}

export { textOf } from './rules';
