import { cacheContract } from './cache.contract';
import { MemoryCache } from './memory';

cacheContract('in-process', async () => {
  const cache = new MemoryCache();
  return { cache, close: () => cache.close() };
});
