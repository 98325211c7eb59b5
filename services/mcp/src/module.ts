import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { Backends } from './backend';

/**
 * The mcp service: MCP over Streamable HTTP (stateless, so any replica answers any request). Its tools and resources
 * call search and records for the caller's tenant; it keeps no data of its own.
 */
export const mcpModule: ServiceModule = {
  name: 'mcp',
  dependsOn: ['records', 'search'],
  async init(ctx) {
    const { config, logger } = ctx;
    const records = ctx.client('records');
    const search = ctx.client('search');
    const upstreams = new Backends(records, search);
    return {
      app: buildApp({ config, logger, upstreams }),
      async stop() {
        records.shutdown();
        search.shutdown();
      },
    };
  },
};
