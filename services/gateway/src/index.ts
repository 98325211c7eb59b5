export { gatewayModule } from './module';
