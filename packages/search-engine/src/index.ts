export * from './port';
export { classifyQuery } from './classify';
export { createSearchEngine } from './factory';
export { PostgresSearchEngine } from './postgres/engine';
