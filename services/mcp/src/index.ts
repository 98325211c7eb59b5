export { mcpModule } from './module';
export { buildApp } from './app';
