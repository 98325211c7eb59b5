import request from 'supertest';
import { newTenant, startMcpSystem } from './helpers';
import { mcpRules } from './rules';

mcpRules(async () => {
  const sys = await startMcpSystem();
  return {
    connect: (tenantId) => sys.connect(tenantId),
    create: (tenantId, body) => sys.create(tenantId, body),
    async status(method, tenantId) {
      const app = request(sys.mcp.instance.app);
      const headers = sys.mcp.as(tenantId, ['search']);
      return (await (method === 'GET' ? app.get('/mcp/') : app.delete('/mcp')).set(headers)).status;
    },
    stop: () => sys.stop(),
  };
}, newTenant);
