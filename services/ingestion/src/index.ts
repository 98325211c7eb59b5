export { ingestionModule } from './module';
