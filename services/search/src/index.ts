export { searchModule } from './module';
export { buildApp } from './app';
export { INDEXER_GROUP } from './consumers/indexer';
export { PUBLIC_AGGREGATE_PATH, PUBLIC_SEARCH_PATH } from './routes/internal-public';
