import { CountTally, type Subscription } from '@trove/bus';
import { usageCountMessage } from '@trove/contracts';
import { createCache } from '@trove/cache';
import { migrate } from '@trove/db';
import { cacheLookups, configuredScheduler, createMetrics } from '@trove/platform';
import type { ServiceModule } from '@trove/runtime';
import { createSearchEngine } from '@trove/search-engine';
import { Counter, Histogram } from 'prom-client';
import { buildApp } from './app';
import { recordsCollectionCheck } from './collection-check';
import { subscribeIndexer } from './consumers/indexer';
import { HealthWindow } from './domain/health-window';
import { migrations } from './migrations';
import { readSettings } from './store/settings-store';
import { MonthlyCap } from './monthly-cap';
import { PipelineWorker } from './pipeline-worker';
import { SearchService } from './search-service';

/** How often private search counts are published to usage.events. */
const USAGE_FLUSH_INTERVAL_MS = 5_000;

/**
 * The search service: keeps the engine in step with records.changed, acknowledges on records.indexed, and serves
 * private search, aggregation and the search health report.
 */
export const searchModule: ServiceModule = {
  name: 'search',
  dependsOn: [],
  async init(ctx) {
    const logger = ctx.logger;
    await migrate(ctx.database, 'search', migrations);
    // On a PostgreSQL server the engine's queries get a pool of their own whose statements time out (PGlite cannot
    // cancel a statement, so there searches are bounded by the fair scheduler alone).
    const reads = await ctx.database.bounded?.(ctx.config.SEARCH_STATEMENT_TIMEOUT_MS);
    const engine = await createSearchEngine({
      database: ctx.database,
      readDatabase: reads,
      elasticsearchUrl: ctx.config.ELASTICSEARCH_URL,
      indexPrefix: ctx.config.ELASTICSEARCH_INDEX_PREFIX,
    });
    const cache = await createCache({ redisUrl: ctx.config.REDIS_URL, keyPrefix: ctx.config.REDIS_KEY_PREFIX, logger: logger.child({ component: 'cache' }) });
    logger.info(
      { engine: engine.kind, cache: cache.kind },
      `search engine: ${engine.kind === 'postgres' ? 'PostgreSQL full-text (embedded)' : 'Elasticsearch'}; response cache: ${
        cache.kind === 'memory' ? 'in-process (one process only; set REDIS_URL for replicas)' : 'Redis'
      }`,
    );
    const metrics = createMetrics('search', ctx.registry);
    const latency = new Histogram({
      name: 'trove_search_duration_seconds',
      help: 'Search latency by query type, search mode and cache outcome',
      labelNames: ['query_type', 'mode', 'cache'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [metrics.registry],
    });
    const zeroResults = new Counter({
      name: 'trove_search_zero_results_total',
      help: 'Searches that found nothing, by query type (the total is trove_search_duration_seconds_count)',
      labelNames: ['query_type'] as const,
      registers: [metrics.registry],
    });
    const indexingLag = new Histogram({
      name: 'trove_indexing_lag_seconds',
      help: 'Time from a record change to its being searchable (the change published to the engine applied)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers: [metrics.registry],
    });
    const health = new HealthWindow(ctx.config.SEARCH_HEALTH_WINDOW);
    const usage = new CountTally({
      bus: ctx.bus,
      logger: logger.child({ component: 'usage-tally' }),
      intervalMs: USAGE_FLUSH_INTERVAL_MS,
      what: 'search usage',
      event: (c) => usageCountMessage('searches', c),
    });
    const scheduler = configuredScheduler(ctx.config, { name: 'search', concurrency: ctx.config.SCHEDULER_SEARCH_CONCURRENCY, registry: metrics.registry });
    // Records says whether a collection exists when a search found nothing (an index lookup, only then).
    const records = ctx.client('records');
    const search = new SearchService({
      engine,
      cache,
      cacheTtlMs: ctx.config.SEARCH_CACHE_TTL_MS,
      statementTimeoutMs: ctx.config.SEARCH_STATEMENT_TIMEOUT_MS,
      health,
      latency,
      zeroResults,
      cacheLookups: cacheLookups(metrics.registry, 'search_response'),
      logger,
      usage,
      scheduler,
      collectionExists: recordsCollectionCheck(records, logger.child({ component: 'collection-check' })),
      settingsOf: async (tenant_id, collection) => (await readSettings(ctx.database.db, tenant_id, collection)).settings,
    });
    // Billing seeds each tenant's month count; while it is unreachable the count starts from 0 (logged), so search does
    // not wait on billing to start.
    const billing = ctx.client('billing');
    const monthlyCap = new MonthlyCap({ cache, billing, logger: logger.child({ component: 'monthly-cap' }) });
    const config = ctx.config;
    const pipeline = new PipelineWorker(
      { db: ctx.database.db, engine, cache, bus: ctx.bus, logger: logger.child({ component: 'pipeline' }) },
      {
        batchSize: config.PIPELINE_BATCH_SIZE,
        concurrency: config.PIPELINE_WORKER_CONCURRENCY,
        maxRetries: config.PIPELINE_MAX_RETRIES,
        jobTimeoutMs: config.PIPELINE_JOB_TIMEOUT * 1000,
        retryDelayMs: config.PIPELINE_RETRY_DELAY_MS,
        breakerFailures: config.PIPELINE_BREAKER_FAILURES,
        breakerPauseMs: config.PIPELINE_BREAKER_PAUSE_SECONDS * 1000,
      },
    );
    const app = buildApp({ config: ctx.config, logger, metrics, readiness: ctx.readiness, engine, cache, db: ctx.database.db, search, health, monthlyCap, pipeline });
    let subscription: Subscription | undefined;
    return {
      app,
      async start() {
        subscription = await subscribeIndexer({ engine, cache, bus: ctx.bus, logger: logger.child({ consumer: 'indexer' }), pipeline, indexingLag });
        pipeline.start();
        usage.start();
      },
      async stop() {
        await usage.stop();
        await subscription?.stop();
        subscription = undefined;
        await pipeline.stop();
        await engine.close();
        await reads?.close();
        billing.shutdown();
        records.shutdown();
        await cache.close();
      },
    };
  },
};
