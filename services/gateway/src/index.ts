export { gatewayModule } from './module';
export { ROUTES, matchRoute, upstreamPath, type Route, type Access } from './domain/route-table';
export { VERSIONED_ALIASES } from './routes/health';
