export * from './port';
export { MemoryCache, DEFAULT_MAX_ENTRIES, type MemoryCacheOptions } from './memory';
export { RedisCache, type RedisCacheOptions } from './redis';
export { createCache, type CreateCacheOptions } from './factory';
