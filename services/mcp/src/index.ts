export { mcpModule } from './module';
