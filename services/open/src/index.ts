export { openModule } from './module';
