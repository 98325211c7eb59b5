export { connectorModule } from './module';
export { reencryptConnectors } from './reencrypt';
