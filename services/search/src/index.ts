export { searchModule } from './module';
export { buildApp } from './app';
export { INDEXER_GROUP } from './consumers/indexer';
