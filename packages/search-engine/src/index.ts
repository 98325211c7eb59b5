export * from './port';
export { classifyQuery, queryWords } from './classify';
export { detectIdentifier, identifiersOf, normaliseIdentifier } from './identifiers';
export { dataText } from './documents';
export { createSearchEngine, type CreateSearchEngineOptions } from './factory';
export { PostgresSearchEngine } from './postgres/engine';
export { ElasticsearchEngine, type ElasticsearchEngineOptions } from './elasticsearch/engine';
