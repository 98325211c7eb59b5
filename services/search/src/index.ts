export { searchModule } from './module';
