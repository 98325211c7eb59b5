import { CountTally, type Subscription } from '@trove/bus';
import { createCache } from '@trove/cache';
import { usageCountMessage } from '@trove/contracts';
import { PortalTokens, cacheLookups, configuredScheduler, createMetrics, type Config, type FairScheduler } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { createGatewayApp } from './app';
import { Authenticator } from './authenticate';
import { subscribeToKeyChanges } from './consumers/auth-events';
import { subscribeToPlanChanges } from './consumers/billing-events';
import { keyChangedBy } from './domain/credentials';
import { UPSTREAM_SERVICES } from './domain/route-table';
import type { ShareClass } from './domain/shares';
import { KeyVerifier } from './key-verifier';
import { TenantLimits } from './tenant-limits';
import { TenantPlans } from './tenant-plans';
import { ServiceProxies } from './service-proxies';

/** How often the tallied API calls leave as usage.events facts. */
const USAGE_FLUSH_INTERVAL_MS = 5_000;

/** The gateway's fair schedulers, one per kind of expensive work (domain/shares.ts), reporting in `metrics`. */
function shareSchedulers(config: Config, metrics: ReturnType<typeof createMetrics>): Record<ShareClass, FairScheduler> {
  const scheduler = (name: ShareClass, concurrency: number) =>
    configuredScheduler(config, { name: `gateway_${name}`, what: name === 'pull' ? 'connector' : name, concurrency, registry: metrics.registry });
  return {
    search: scheduler('search', config.SCHEDULER_GATEWAY_SEARCH_CONCURRENCY),
    upload: scheduler('upload', config.SCHEDULER_GATEWAY_UPLOAD_CONCURRENCY),
    pull: scheduler('pull', config.SCHEDULER_GATEWAY_PULL_CONCURRENCY),
  };
}

/** The only public entry. It depends on every other service so that it starts last and stops first. */
export const gatewayModule: ServiceModule = {
  name: 'gateway',
  dependsOn: ['auth', 'records', 'ingestion', 'search', 'open', 'mcp'],
  async init({ config, logger, bus, client, readiness, local, registry }) {
    const metrics = createMetrics('gateway', registry);
    const keys = new KeyVerifier({
      auth: client('auth'),
      cacheTtlMs: config.KEY_CACHE_TTL_MS,
      logger,
      lookups: cacheLookups(registry, 'api_key'),
    });
    const upstreams = new ServiceProxies({
      config,
      services: UPSTREAM_SERVICES,
      local,
      registry,
      // The replica that forwarded a revoke or rotate forgets the key before its client sees the answer;
      // auth.events tells every other replica.
      onResponse: (service, req, status, path) => {
        if (service !== 'auth' || status < 200 || status >= 300) return;
        const keyId = keyChangedBy(req.method, path);
        if (keyId) keys.drop(keyId);
      },
    });
    const plans = new TenantPlans();
    const authenticator = new Authenticator({ keys, portalTokens: new PortalTokens(config), allowDevTenant: config.ENV === 'development', plans });
    if (config.ENV === 'development') logger.warn('ENV=development: X-Tenant-Id is accepted in place of an API key');
    const cache = await createCache({ redisUrl: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger: logger.child({ component: 'cache' }) });
    logger.info(
      { cache: cache.kind },
      `tenant rate limits counted ${cache.kind === 'memory' ? 'in-process (one gateway only; set REDIS_URL for replicas)' : 'in Redis'}`,
    );
    const limits = new TenantLimits({ cache, enabled: config.TENANT_RATE_LIMITS, logger: logger.child({ component: 'tenant-limits' }) });
    if (!config.TENANT_RATE_LIMITS) logger.warn('TENANT_RATE_LIMITS=false: per-tenant calls per minute are neither counted nor limited');
    const requests = new CountTally({
      bus,
      logger: logger.child({ component: 'usage-tally' }),
      intervalMs: USAGE_FLUSH_INTERVAL_MS,
      what: 'API call usage',
      event: (c) => usageCountMessage('requests', c),
    });

    const shares = shareSchedulers(config, metrics);

    let subscription: Subscription | undefined;
    let planChanges: Subscription | undefined;
    return {
      app: createGatewayApp({ config, logger, metrics, readiness: { ...readiness, cache: () => cache.ping() }, authenticator, upstreams, limits, requests, shares }),
      async start() {
        subscription = await subscribeToKeyChanges(bus, keys, logger);
        planChanges = await subscribeToPlanChanges(bus, plans, keys, logger, config.JWT_TTL_SECONDS);
        keys.enableCache();
        requests.start();
      },
      async stop() {
        keys.disableCache();
        await subscription?.stop();
        await planChanges?.stop();
        upstreams.shutdown();
        keys.shutdown();
        // The server has stopped taking requests, so this flush holds every call counted.
        await requests.stop();
        await cache.close();
      },
    };
  },
};
