export * from './port';
export { MemoryCache } from './memory';
export { createCache } from './factory';
export { FailOpenCounts } from './fail-open';
