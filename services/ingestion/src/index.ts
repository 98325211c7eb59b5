export { ingestionModule } from './module';
export { migrations as ingestionMigrations } from './migrations';
export { buildApp } from './app';
