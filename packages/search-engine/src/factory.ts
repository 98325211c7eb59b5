import type { Database } from '@trove/db';
import { ElasticsearchEngine } from './elasticsearch/engine';
import type { SearchEngine } from './port';
import { PostgresSearchEngine } from './postgres/engine';

export interface CreateSearchEngineOptions {
  /** The search service's database: the PostgreSQL engine keeps its tables there. */
  database: Database;
  /** Another handle on it for the PostgreSQL engine's queries (one whose statements time out); `database` otherwise. */
  readDatabase?: Database;
  /** ELASTICSEARCH_URL; without it the engine is PostgreSQL full-text search. */
  elasticsearchUrl?: string;
  indexPrefix?: string;
}

/** Chooses the engine once from configuration and prepares it (tables, indexes or index templates). */
export async function createSearchEngine(opts: CreateSearchEngineOptions): Promise<SearchEngine> {
  const engine: SearchEngine = opts.elasticsearchUrl
    ? new ElasticsearchEngine({ node: opts.elasticsearchUrl, indexPrefix: opts.indexPrefix })
    : new PostgresSearchEngine(opts.database, opts.readDatabase);
  await engine.init();
  return engine;
}
