import { createCache } from '@trove/cache';
import { migrate } from '@trove/db';
import type { ServiceModule } from '@trove/runtime';
import { buildApp } from './app';
import { migrations } from './migrations';
import { OpenService } from './open-service';
import { SearchCounter } from './search-counter';
import type { Db } from './store/schema';
import { PublicIndex } from './public-index';

/** How often gathered Open search counts are written. */
const COUNT_FLUSH_INTERVAL_MS = 5_000;

/** The Open API: public search, aggregation, collections and record lookup across tenants, limited per client IP. */
export const openModule: ServiceModule = {
  name: 'open',
  dependsOn: ['records', 'search'],
  async init(ctx) {
    const { config, logger } = ctx;
    await migrate(ctx.database, 'open', migrations);
    // The one place the untyped handle gets the open schema's table types; everything below takes `db`.
    const db: Db = ctx.database.db;
    const records = ctx.client('records');
    const search = ctx.client('search');
    const cache = await createCache({ redisUrl: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger: logger.child({ component: 'cache' }) });
    logger.info(
      { cache: cache.kind },
      `open API rate limits counted ${cache.kind === 'memory' ? 'in-process (one process only; set REDIS_URL for replicas)' : 'in Redis'}`,
    );
    const counter = new SearchCounter({ db, logger: logger.child({ component: 'search-counter' }), intervalMs: COUNT_FLUSH_INTERVAL_MS });
    const upstreams = new PublicIndex({ search, records });
    const open = new OpenService({ upstreams, counter });
    return {
      app: buildApp({ config, logger, readiness: ctx.readiness, cache, open, counter, upstreams }),
      async start() {
        counter.start();
      },
      async stop() {
        await counter.stop();
        records.shutdown();
        search.shutdown();
        await cache.close();
      },
    };
  },
};
