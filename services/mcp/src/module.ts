import { ServiceClient, serviceUrl, type Config } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { Upstreams } from './upstreams';

function clientOf(config: Config, service: 'records' | 'search'): ServiceClient {
  return new ServiceClient({
    service,
    caller: 'mcp',
    baseUrl: serviceUrl(config, service),
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    tokenTtlSeconds: config.INTERNAL_TOKEN_TTL_SECONDS,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  });
}

/**
 * The mcp service: MCP over Streamable HTTP (stateless, so any replica answers any request). Its tools and resources
 * call search and records for the caller's tenant; it keeps no data of its own.
 */
export const mcpModule: ServiceModule = {
  name: 'mcp',
  dependsOn: ['records', 'search'],
  async init(ctx) {
    const { config, logger } = ctx;
    const records = clientOf(config, 'records');
    const search = clientOf(config, 'search');
    const upstreams = new Upstreams(records, search);
    return {
      app: buildApp({ config, logger, upstreams }),
      async stop() {
        records.shutdown();
        search.shutdown();
      },
    };
  },
};
