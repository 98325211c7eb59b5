export { gatewayModule } from './module';
export { ROUTES, type Route, type Access } from './domain/route-table';
