export { openModule } from './module';
export { buildApp } from './app';
export { OPEN_SEARCH_COUNTS_PATH } from './routes/internal-analytics';
