export * from './port';
export { classifyQuery, queryWords, STOP_WORDS } from './classify';
export { createSearchEngine } from './factory';
export { PostgresSearchEngine } from './postgres/engine';
export { withinTypos } from './typos';
